/**
 * A client written for the spec's shape, as a user's would be: plain fetch, the spec's statuses and fields
 * taken at their word. Each step's outcome is recorded (a value, or how it failed), so its run against the
 * platform and against the profiled emulator can be compared step for step.
 */
import { smallestBundle } from "../../tools/conformance/bundle";

const normal = (s: string) =>
  s.replace(/\b(ext|ver)_[0-9A-Za-z]{26}\b/g, "$1_<id>").replace(/\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z/g, "<time>");

export async function specClientRun(baseUrl: string, apiKey: string): Promise<string[]> {
  const auth = { authorization: `Bearer ${apiKey}` };
  const call = (method: string, path: string, body?: unknown, headers: Record<string, string> = auth) =>
    fetch(baseUrl + path, {
      method,
      headers: { ...headers, ...(body === undefined ? {} : { "content-type": "application/json" }) },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
  const json = async (r: Response) => {
    const text = await r.text();
    return text ? JSON.parse(text) : null;
  };
  const out: string[] = [];
  const step = async (name: string, fn: () => Promise<unknown>) => {
    try {
      out.push(normal(`${name}: ok ${JSON.stringify((await fn()) ?? null)}`));
    } catch (e) {
      out.push(normal(`${name}: fails (${(e as Error).constructor.name}: ${(e as Error).message})`));
    }
  };
  const expectStatus = (r: Response, status: number) => {
    if (r.status !== status) throw new Error(`answered ${r.status}, the spec says ${status}`);
  };

  let id = "";
  await step("createExtension", async () => {
    const r = await call("POST", "/extensions", { name: "Spec Client" });
    const body = await json(r);
    id = body?.extension?.id ?? "";
    expectStatus(r, 201);
    return body.extension.status;
  });
  await step("listExtensions: installs + 1", async () =>
    (await json(await call("GET", "/extensions"))).extensions.map((e: { installCount: number }) => e.installCount + 1),
  );
  await step("getExtension", async () => (await json(await call("GET", `/extensions/${id}`))).name);
  await step("putSecret", async () =>
    expectStatus(await call("PUT", `/extensions/${id}/secrets/API_TOKEN`, { value: "v-123456" }), 204),
  );
  await step("listSecrets: count", async () => {
    const body = await json(await call("GET", `/extensions/${id}/secrets`));
    return body.keys.length;
  });
  await step("deleteSecret", async () =>
    expectStatus(await call("DELETE", `/extensions/${id}/secrets/API_TOKEN`), 204),
  );
  await step("submitVersion", async () => {
    const form = new FormData();
    form.set("version", "1.0.0");
    form.set("changelog", "First");
    form.set("bundle", new Blob([await smallestBundle()], { type: "application/gzip" }), "bundle.tar.gz");
    const r = await fetch(`${baseUrl}/extensions/${id}/versions`, { method: "POST", headers: auth, body: form });
    expectStatus(r, 202);
    return (await json(r)).version.status;
  });
  await step("listVersions: sizes", async () =>
    (await json(await call("GET", `/extensions/${id}/versions`))).versions.map(
      (v: { bundleSizeBytes: number }) => v.bundleSizeBytes > 0,
    ),
  );
  await step("getMissing: error.status", async () => {
    const r = await call("GET", "/extensions/ext_00000000000000000000000000");
    expectStatus(r, 404);
    const { error } = await json(r);
    if (error.status !== 404) throw new Error(`error.status is ${error.status}, the spec says 404`);
    return error.code;
  });
  await step("patchInvalid", async () => {
    const r = await call("PATCH", `/extensions/${id}`, { name: 42 });
    expectStatus(r, 422);
    return (await json(r)).error.code;
  });
  await step("unauthenticated: code", async () => {
    const r = await call("GET", "/extensions", undefined, {});
    const { error } = await json(r);
    if (error.code !== "unauthorized") throw new Error(`code ${error.code}, the spec says unauthorized`);
    return r.headers.get("www-authenticate");
  });
  await step("rate headers: remaining", async () => {
    const remaining = (await call("GET", "/extensions")).headers.get("x-ratelimit-remaining");
    if (remaining === null) throw new Error("no X-RateLimit-Remaining");
    return "present";
  });
  await step("deleteExtension", async () => expectStatus(await call("DELETE", `/extensions/${id}`), 204));
  return out;
}
