/**
 * Every answer tells a browser not to sniff it and to run nothing in it — a developer-API success or refusal, a
 * control-plane answer, a stream, an answer refused before routing — so no JSON answer, whatever it holds, is a
 * page on the origin the dashboard keeps its session in. The dashboard and the docs keep their own policies.
 * Real server, real sockets.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { JSON_MEDIA_TYPE } from "../../server/http/answer-headers";
import { DEMO_KEY, startTestEmulator, stopTestEmulator, type TestEmulator } from "../helpers/emulator";
import { rawExchange } from "../helpers/raw-http";

const CSP = "default-src 'none'; frame-ancestors 'none'";

let emu: TestEmulator;
let admin: string;
beforeAll(async () => {
  emu = await startTestEmulator({ config: { rateLimits: true } });
  admin = emu.runtime.control.adminToken;
});
afterAll(() => stopTestEmulator(emu));

async function headersOf(method: string, path: string, key: string | null, json?: unknown) {
  const res = await emu.rawRequest(method, path, { key, ...(json === undefined ? {} : { json }) });
  return {
    what: `${method} ${path} → ${res.status}`,
    nosniff: res.headers.get("x-content-type-options"),
    csp: res.headers.get("content-security-policy"),
    type: res.headers.get("content-type"),
  };
}

test("developer-API and control-plane answers, successes and refusals alike, carry nosniff and a policy that runs nothing", async () => {
  const created = await emu.rawRequest("POST", "/developer/v1/extensions", {
    key: DEMO_KEY,
    json: { name: "Headers" },
  });
  expect(created.status).toBe(201);
  const id = (created.body as { extension: { id: string } }).extension.id;
  const answers = [
    await headersOf("GET", "/developer/v1/extensions", DEMO_KEY),
    await headersOf("GET", "/developer/v1/extensions", null),
    await headersOf("GET", `/developer/v1/extensions/${id}`, DEMO_KEY),
    await headersOf("GET", "/developer/v1/extensions/ext_nope", DEMO_KEY),
    await headersOf("PUT", `/developer/v1/extensions/${id}/secrets/API_TOKEN`, DEMO_KEY, { value: "v" }),
    await headersOf("POST", "/developer/v1/extensions", DEMO_KEY, { name: "" }),
    await headersOf("GET", "/developer/v1/nowhere", DEMO_KEY),
    await headersOf("GET", "/nowhere", null),
    await headersOf("GET", "/healthz", null),
    await headersOf("GET", "/_emulator/state", admin),
    await headersOf("GET", "/_emulator/state", null),
    await headersOf("GET", "/_emulator/export", admin),
    await headersOf("GET", "/openapi.json", null),
  ];
  const statuses = answers.map((a) => a.what.split(" → ")[1]);
  expect(statuses).toEqual(["200", "401", "200", "404", "204", "422", "404", "404", "200", "200", "401", "200", "200"]);
  expect(answers.filter((a) => a.nosniff !== "nosniff" || a.csp !== CSP)).toEqual([]);
  // One spelling of the JSON type, a refusal's as a success's (a client comparing it as text sees one).
  const json = answers.filter((a) => !a.what.endsWith(" 204") && !a.what.startsWith("GET /_emulator/export "));
  expect(new Set(json.map((a) => a.type))).toEqual(new Set([JSON_MEDIA_TYPE]));
});

test("a stream and an answer refused before routing carry them too", async () => {
  const aborted = new AbortController();
  const stream = await fetch(`${emu.url}/_emulator/requests/stream`, {
    headers: { authorization: `Bearer ${admin}` },
    signal: aborted.signal,
  });
  expect(stream.headers.get("content-type")).toStartWith("text/event-stream");
  expect([stream.headers.get("x-content-type-options"), stream.headers.get("content-security-policy")]).toEqual([
    "nosniff",
    CSP,
  ]);
  aborted.abort();
  // No Host: refused before the request's context is opened.
  const refused = await rawExchange("127.0.0.1", emu.port, "GET /developer/v1/extensions HTTP/1.0\r\n\r\n");
  expect(refused.status).toBe(400);
  const head = refused.text.slice(0, refused.text.indexOf("\r\n\r\n")).toLowerCase();
  expect(head).toContain("\r\nx-content-type-options: nosniff");
  expect(head).toContain(`\r\ncontent-security-policy: ${CSP}`);
});

test("the dashboard and the docs keep their own policies, with nosniff", async () => {
  for (const url of [`${emu.dashboardUrl}/`, `${emu.url}/docs`]) {
    const res = await fetch(url);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toStartWith("text/html");
    expect(res.headers.get("x-content-type-options")).toBe("nosniff");
    expect(res.headers.get("content-security-policy")).toContain("script-src 'self'");
    expect(res.headers.get("content-security-policy")).toContain("frame-ancestors 'none'");
    await res.arrayBuffer();
  }
  const script = await fetch(`${emu.url}/docs/scalar.js`);
  expect(script.headers.get("x-content-type-options")).toBe("nosniff");
  await script.arrayBuffer();
});
