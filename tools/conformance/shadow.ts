/**
 * `ext proxy --shadow`: each request is replayed against an in-process emulator and the two answers are
 * compared by status, error code and shape (field names and value types, not values). Ids the two sides
 * generated differ, so the upstream's ids are mapped onto the emulator's as answers reveal them, and later
 * paths and bodies are rewritten before replay. Credentials are mapped by what the upstream made of them:
 * a 401 replays without a valid key, a 403 with a read-only key, anything else with a full key.
 */
import { createTransport, DEFAULT_REQUEST_TIMEOUT_SECONDS } from "../calls/transport";
import { startEmulator } from "../helper/start-emulator";
import { idMap } from "./id-map";
import { isObject, parseJson } from "./shape";

export interface ShadowRequest {
  method: string;
  pathAndQuery: string;
  headers: Headers;
  body: Uint8Array | null;
}
export interface ShadowAnswer {
  status: number;
  headers: Headers;
  body: string;
}

function randomKey(): string {
  const bytes = new Uint8Array(24);
  crypto.getRandomValues(bytes);
  return `ext_shadow_${Buffer.from(bytes).toString("base64url")}`;
}

export interface Shadow {
  /** Replays one request, given how the upstream answered it; returns ext's answer and the differences. */
  compare(request: ShadowRequest, upstream: ShadowAnswer): Promise<{ ext: ShadowAnswer; differences: string[] }>;
  stop(): Promise<void>;
}

const typeOf = (v: unknown) =>
  v === null ? "null" : Array.isArray(v) ? "array" : Number.isInteger(v) ? "integer" : typeof v;

export async function startShadow(timeoutMs = DEFAULT_REQUEST_TIMEOUT_SECONDS * 1000): Promise<Shadow> {
  const full = randomKey();
  const readOnly = randomKey();
  const emulator = await startEmulator({
    fixture: {
      accounts: [
        {
          id: "acc_shadow",
          name: "Shadow",
          apiKeys: [
            { name: "full", key: full, scopes: ["*"] },
            { name: "read", key: readOnly, scopes: ["extensions:read", "secrets:read"] },
          ],
          extensions: [],
        },
      ],
    },
    // The platform's limits, as the spec gives them: the shadow answers as `ext serve` does.
    rateLimits: true,
  });
  // Its own emulator, proven like any other before it is sent a key.
  const transport = createTransport({ timeoutMs, proof: { adminToken: emulator.adminToken, url: emulator.url } });
  const ids = idMap();

  function shapeDiff(path: string, up: unknown, ext: unknown, out: string[]): void {
    const [a, b] = [typeOf(up), typeOf(ext)];
    if (a !== b) {
      out.push(`${path || "body"}: ${a} from the upstream, ${b} from ext`);
      return;
    }
    if (isObject(up) && isObject(ext)) {
      const extKeys = new Set(Object.keys(ext));
      for (const k of Object.keys(up)) {
        const mapped = ids.get(k) ?? k;
        if (!extKeys.has(mapped)) out.push(`${path}${path ? "." : ""}${k}: only the upstream sends it`);
        else shapeDiff(`${path}${path ? "." : ""}${k}`, up[k], ext[mapped], out);
        extKeys.delete(mapped);
      }
      for (const k of extKeys) out.push(`${path}${path ? "." : ""}${k}: only ext sends it`);
    } else if (Array.isArray(up) && Array.isArray(ext) && up.length > 0 && ext.length > 0) {
      shapeDiff(`${path}[]`, up[0], ext[0], out);
    }
  }

  return {
    async compare(request, upstream) {
      const headers = new Headers(request.headers);
      headers.delete("host");
      headers.delete("content-length");
      if (upstream.status === 401) {
        if (headers.has("authorization")) headers.set("authorization", "Bearer ext_shadow_not_a_key");
      } else headers.set("authorization", `Bearer ${upstream.status === 403 ? readOnly : full}`);
      const type = headers.get("content-type") ?? "";
      const body =
        request.body && type.startsWith("application/json")
          ? ids.mapText(new TextDecoder().decode(request.body))
          : request.body;
      const answer = await transport.fetch(
        new Request(emulator.url + ids.mapText(request.pathAndQuery), {
          method: request.method,
          headers,
          ...(body !== null && request.method !== "GET" && request.method !== "HEAD" ? { body } : {}),
        }),
      );
      const ext: ShadowAnswer = { status: answer.status, headers: answer.headers, body: await answer.text() };
      const differences: string[] = [];
      if (ext.status !== upstream.status)
        differences.push(`status: ${upstream.status} from the upstream, ${ext.status} from ext`);
      const [u, e] = [parseJson(upstream.body), parseJson(ext.body)];
      if (u.ok && e.ok) {
        const [ue, ee] = [isObject(u.value) ? u.value.error : undefined, isObject(e.value) ? e.value.error : undefined];
        if (isObject(ue) && isObject(ee) && ue.code !== ee.code)
          differences.push(`error.code: ${String(ue.code)} from the upstream, ${String(ee.code)} from ext`);
        if (ext.status === upstream.status) shapeDiff("", u.value, e.value, differences);
        ids.learn(u.value, e.value);
      } else if (upstream.body !== "" && ext.body === "") differences.push("body: the upstream sends one, ext none");
      else if (upstream.body === "" && ext.body !== "") differences.push("body: ext sends one, the upstream none");
      return { ext, differences };
    },
    stop: () => emulator.stop(),
  };
}
