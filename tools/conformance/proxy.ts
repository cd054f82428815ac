/**
 * `ext proxy`: forwards each request unchanged to the upstream and its answer unchanged to the client —
 * status, headers (hop-by-hop ones aside), body bytes streamed as they come (compressed bodies stay
 * compressed) — while a copy of both is checked against the contract once the exchange ends. Checking never
 * delays or alters what the client gets. Listens on 127.0.0.1 only, and answers only requests addressed to
 * it by a loopback name, as the emulator does (server/http/host-check.ts): a web page that re-points its own
 * name at 127.0.0.1 (DNS rebinding) cannot read the upstream through it. Calls the upstream through the
 * tools' one transport (tools/calls/transport.ts).
 *
 * Any local user can send traffic through it, so what it holds is bounded: the report (proxy-report.ts), the
 * bodies waiting for the checks (QUEUE_LIMITS: past them an exchange is forwarded but not checked), and how
 * often the report is rewritten (at most every `writeEveryMs`, and at stop).
 */
import { brotliDecompressSync, gunzipSync, inflateSync } from "node:zlib";
import { normalJit } from "../../common/jit-policy";
import {
  ApiError,
  errorCodeOf,
  errors,
  hostGate,
  observe,
  operationOf,
  ProfileBuilder,
  requestTarget,
  writeProfileFile,
} from "../../server";
import { createTransport, DEFAULT_REQUEST_TIMEOUT_SECONDS } from "../calls/transport";
import { nowIso } from "./clock";
import { answerProblems, choiceProblems, endpointOf, requestProblems } from "./contract";
import { type Collected, collect, createQueue, type Hold, type QueueState } from "./proxy-queue";
import { DifferenceLog, UNKNOWN_PATHS } from "./proxy-report";
import { createRedactor } from "./redact";
import { type Shadow, startShadow } from "./shadow";
import { isObject, parseJson } from "./shape";
import { SECRET_LABEL } from "./step";
import { originOf } from "./transport";
import type { Exchange } from "./types";

const HOP_BY_HOP = [
  "connection",
  "keep-alive",
  "proxy-authenticate",
  "proxy-authorization",
  "te",
  "trailer",
  "transfer-encoding",
  "upgrade",
];
/** How much of a body is kept for checking (the client always gets all of it). */
const CHECKED_BYTES = 1024 * 1024;
/** With --shadow, request bodies up to this are kept for the replay (a bundle is at most ~50 MB). */
const REPLAYED_BYTES = 64 * 1024 * 1024;
/**
 * What may wait for the checks at once: exchanges admitted and not yet checked, and the body bytes they hold
 * (requests' and answers'). Room for one replayed upload of the largest bundle beside ordinary traffic.
 */
const QUEUE_LIMITS = { entries: 64, bytes: 96 * 1024 * 1024 };
/** The report and the profile are rewritten at most this often (and at stop), not after every exchange. */
const WRITE_EVERY_MS = 500;

export interface ProxyOptions {
  upstream: string;
  port?: number;
  /** Rewritten at most every `writeEveryMs` while exchanges come, and at stop (where a failure is thrown). */
  reportFile?: string;
  /** How often, at most, the report and the profile are rewritten while exchanges come (default 500 ms). */
  writeEveryMs?: number;
  /** Told when a rewrite of the report or the profile fails (the proxy goes on forwarding). */
  onReportError?: (message: string) => void;
  shadow?: boolean;
  /**
   * Write what the upstream does differently as a platform profile, as often as the report and at stop. Each
   * request is replayed in the shadow (as with `shadow`) to learn ext's answer to it.
   */
  profileFile?: string;
  /** Each upstream request's wait (tools/calls/transport.ts); default 30 s. */
  timeoutMs?: number;
  /** What may wait for the checks (default QUEUE_LIMITS). */
  queueLimits?: { entries: number; bytes: number };
}

export type { QueueState };

export interface RunningProxy {
  url: string;
  log: DifferenceLog;
  /** With `profileFile`: the profile so far, and its causes. */
  profile: ProfileBuilder | null;
  /** Resolves once every exchange so far has been checked (and replayed). */
  settled(): Promise<void>;
  queue(): QueueState;
  /** Stops, then writes the files one last time; rejects with ProxyFilesError naming each that could not be. */
  stop(): Promise<void>;
}

/** The files a stopping proxy could not write: each one's message, and whether the profile was among them. */
export class ProxyFilesError extends Error {
  constructor(
    readonly messages: string[],
    readonly profileUnsaved: boolean,
  ) {
    super(messages.join("; "));
  }
}

/**
 * The kept body as text, decoded as its Content-Encoding says; null when it cannot be, or when it would decode
 * to more than CHECKED_BYTES (a few compressed bytes can stand for gigabytes: the limit is on the output).
 */
export function decoded(bytes: Uint8Array, encoding: string | null): string | null {
  const limit = { maxOutputLength: CHECKED_BYTES };
  try {
    const e = (encoding ?? "").trim().toLowerCase();
    const raw =
      e === "" || e === "identity"
        ? bytes
        : e === "gzip"
          ? gunzipSync(bytes, limit)
          : e === "deflate"
            ? inflateSync(bytes, limit)
            : e === "br"
              ? brotliDecompressSync(bytes, limit)
              : null;
    return raw === null ? null : new TextDecoder().decode(raw);
  } catch {
    return null;
  }
}

/** The emulator's own refusals of a request it cannot place or that a page addressed by another name. */
function refusal(request: Request, hosts: ReturnType<typeof hostGate>): Response | null {
  try {
    const target = requestTarget(request, request.url);
    if ("problem" in target) throw errors.badRequestTarget(target.problem);
    hosts(target.host);
    return null;
  } catch (e) {
    if (!(e instanceof ApiError)) throw e;
    return Response.json(e.toBody(), { status: e.status, headers: e.headers });
  }
}

function forwardHeaders(from: Headers): Headers {
  const h = new Headers(from);
  for (const name of [...HOP_BY_HOP, "host"]) h.delete(name);
  return h;
}

export async function startProxy(options: ProxyOptions): Promise<RunningProxy> {
  const upstream = originOf(options.upstream);
  // A profile is learned by replaying each exchange in the shadow: with one, the shadow runs (and the report says so).
  const shadowing = Boolean(options.shadow || options.profileFile);
  const log = new DifferenceLog(upstream, shadowing);
  const redactor = createRedactor();
  const profile = options.profileFile ? new ProfileBuilder("proxy", upstream, nowIso()) : null;
  const timeoutMs = options.timeoutMs ?? DEFAULT_REQUEST_TIMEOUT_SECONDS * 1000;
  const shadow: Shadow | null = shadowing ? await startShadow(timeoutMs) : null;
  const outbound = createTransport({ timeoutMs, passthrough: true });
  const hosts = hostGate();
  let queue: Promise<void> = Promise.resolve();
  const waiting = createQueue(options.queueLimits ?? QUEUE_LIMITS, () => log.notCheckedBusy++);

  async function check(
    request: Request,
    pathAndQuery: string,
    hold: Hold,
    requestBody: Promise<Collected> | null,
    response: Response,
    responseBody: Promise<Collected> | null,
  ) {
    const reqBody = requestBody ? await requestBody : null;
    const resBody = responseBody ? await responseBody : null;
    // Counted busy when the queue was full (createQueue); nothing of it is kept.
    if (hold.busy) return;
    const url = new URL(request.url);
    // An emulator's own liveness and proof (the tools' challenge through the proxy): no endpoint of the spec.
    if (url.pathname === "/healthz") return;
    const endpoint = endpointOf(request.method, url.pathname);
    const type = request.headers.get("content-type") ?? "";
    const reqText = reqBody && !type.startsWith("multipart/") ? new TextDecoder().decode(reqBody.bytes) : null;
    // A secret's value is learnt before anything is recorded, so no record can hold it.
    if (endpoint === "PUT /developer/v1/extensions/:id/secrets/:key" && reqText) {
      const parsed = parseJson(reqText);
      if (parsed.ok && isObject(parsed.value) && typeof parsed.value.value === "string")
        redactor.add(parsed.value.value, SECRET_LABEL);
    }
    const resText = resBody ? decoded(resBody.bytes, response.headers.get("content-encoding")) : "";
    const exchange: Exchange = {
      request: {
        method: request.method,
        path: redactor.text(pathAndQuery),
        headers: {
          ...redactor.headers(request.headers),
          ...(request.headers.has("authorization") ? { authorization: "<redacted>" } : {}),
        },
        ...(reqText === null
          ? type.startsWith("multipart/")
            ? { body: "(multipart form)" }
            : {}
          : {
              body:
                endpoint === "PUT /developer/v1/extensions/:id/secrets/:key"
                  ? `{"value":"${SECRET_LABEL}"}`
                  : redactor.text(reqText.slice(0, 4096)),
            }),
      },
      response: {
        status: response.status,
        headers: redactor.headers(response.headers),
        body: resText === null ? "(body not decodable)" : redactor.text(resText.slice(0, 64 * 1024)),
      },
    };
    // Every path the spec does not have is one cause, whatever the path: a client cannot grow the report per path.
    const name = endpoint ?? UNKNOWN_PATHS;
    log.exchanges++;
    if (!endpoint) log.add("request", name, "requests to paths the API does not have", exchange);
    else for (const p of requestProblems(endpoint, request.headers, reqText)) log.add("request", name, p, exchange);
    if (resText !== null && resBody?.whole !== false) {
      for (const p of answerProblems(endpoint, exchange)) log.add("answer", name, p, exchange);
      for (const p of choiceProblems(endpoint, exchange)) log.add("choice", name, p, exchange);
      // The redactor knows only secret values here: if it changes the text, the answer carries one.
      if (redactor.text(resText) !== resText)
        log.add("answer", name, "the answer carries a secret value (shown as <secret value>)", exchange);
    }
    if (shadow && resText !== null && (reqBody === null || reqBody.whole)) {
      const { ext, differences } = await shadow.compare(
        { method: request.method, pathAndQuery, headers: request.headers, body: reqBody?.bytes ?? null },
        { status: response.status, headers: response.headers, body: resText },
      );
      const extRecorded = {
        status: ext.status,
        headers: redactor.headers(ext.headers),
        body: redactor.text(ext.body.slice(0, 64 * 1024)),
      };
      for (const d of differences) log.add("shadow", name, d, exchange, extRecorded);
      const operation = profile && operationOf(request.method, url.pathname);
      if (profile && operation) {
        const code = errorCodeOf(ext.body);
        const observation = observe(
          operation,
          { status: ext.status, ...(code && ext.status >= 400 ? { code } : {}) },
          { status: response.status, headers: exchange.response!.headers, body: exchange.response!.body },
        );
        profile.add(observation, {
          label: name,
          exchange: `${request.method} ${exchange.request.path} → ${response.status}`,
        });
      }
    }
    writeSoon();
  }

  let writeTimer: ReturnType<typeof setTimeout> | null = null;
  /** Each file on its own: one that cannot be written is told and does not keep the other from being written. */
  function writeFiles(told: (e: unknown, which: "report" | "profile") => void): void {
    const writes = [
      ["report", () => options.reportFile && log.write(options.reportFile)],
      ["profile", () => profile && options.profileFile && writeProfileFile(options.profileFile, profile.profile())],
    ] as const;
    for (const [which, write] of writes)
      try {
        write();
      } catch (e) {
        told(e, which);
      }
  }
  /**
   * Rewritten once the interval has passed since the first change after the last write, not after every
   * exchange. A file that cannot be written is told, and the proxy goes on forwarding.
   */
  function writeSoon(): void {
    if (writeTimer || (!options.reportFile && !options.profileFile)) return;
    writeTimer = setTimeout(() => {
      writeTimer = null;
      writeFiles((e) => options.onReportError?.((e as Error).message));
    }, options.writeEveryMs ?? WRITE_EVERY_MS);
  }

  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: options.port ?? 0,
    // A slow upstream (a 50 MB upload) must not be cut by the proxy's own idle timer.
    idleTimeout: 255,
    maxRequestBodySize: 1024 * 1024 * 1024,
    async fetch(request) {
      const refused = refusal(request, hosts);
      if (refused) return refused;
      const url = new URL(request.url);
      const pathAndQuery = url.pathname + url.search;
      // No room in the queue: forwarded as it is, never teed, never checked.
      const hold = waiting.admit();
      let upstreamBody: ReadableStream<Uint8Array> | null = hold ? null : request.body;
      let requestBody: Promise<Collected> | null = null;
      if (request.body && hold) {
        const [a, b] = request.body.tee();
        upstreamBody = a;
        requestBody = collect(b, shadow ? REPLAYED_BYTES : CHECKED_BYTES, hold);
      }
      let answer: Response;
      try {
        answer = await outbound.fetch(
          new Request(upstream + pathAndQuery, {
            method: request.method,
            headers: forwardHeaders(request.headers),
            ...(upstreamBody ? { body: upstreamBody, duplex: "half" } : {}),
          } as RequestInit),
        );
      } catch (e) {
        // Nothing to check: the hold goes back once the request's copy has been read.
        if (hold) void (requestBody ?? Promise.resolve()).catch(() => undefined).then(hold.release);
        return Response.json(
          {
            error: {
              code: "bad_gateway",
              message: `ext proxy: the upstream did not answer (${(e as Error).message})`,
              status: 502,
            },
          },
          { status: 502 },
        );
      }
      let toClient: ReadableStream<Uint8Array> | null = hold ? null : answer.body;
      let responseBody: Promise<Collected> | null = null;
      if (answer.body && hold) {
        const [a, b] = answer.body.tee();
        toClient = a;
        responseBody = collect(b, CHECKED_BYTES, hold);
      }
      if (hold) {
        const checked = () =>
          check(request, pathAndQuery, hold, requestBody, answer, responseBody)
            .catch(() => undefined)
            .finally(hold.release);
        queue = queue.then(checked);
      }
      return new Response(toClient, {
        status: answer.status,
        statusText: answer.statusText,
        headers: forwardHeaders(answer.headers),
      });
    },
  });
  normalJit();
  return {
    url: `http://127.0.0.1:${server.port}`,
    log,
    profile,
    settled: () => queue,
    queue: () => ({ ...waiting.state }),
    async stop() {
      await server.stop(true);
      await queue;
      if (writeTimer) clearTimeout(writeTimer);
      writeTimer = null;
      const messages: string[] = [];
      let profileUnsaved = false;
      try {
        writeFiles((e, which) => {
          messages.push((e as Error).message);
          if (which === "profile") profileUnsaved = true;
        });
        if (messages.length > 0) throw new ProxyFilesError(messages, profileUnsaved);
      } finally {
        await shadow?.stop();
      }
    },
  };
}
