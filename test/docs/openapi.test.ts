/**
 * /openapi.json documents every developer route the app registers (request bodies, success and error
 * responses), and /docs serves its UI from the binary with no CDN.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { openapi } from "@elysiajs/openapi";
import { createApp } from "../../src/app";
import { documentation } from "../../src/docs/openapi";
import { API_PREFIX, DEPLOY_LIMITS_PREFIX } from "../../src/config";
import { startTestEmulator, stopTestEmulator, type TestEmulator } from "../helpers/emulator";

let emu: TestEmulator;
let doc: any;
beforeAll(async () => {
  emu = await startTestEmulator();
  const res = await emu.raw("GET", "/openapi.json", { key: null });
  expect(res.status).toBe(200);
  doc = res.body;
});
afterAll(() => stopTestEmulator(emu));

/** The developer routes the app actually registers, as OpenAPI paths. */
function developerRoutes(): { method: string; path: string }[] {
  const app = createApp(emu.runtime);
  return app.routes
    .filter((r) => r.path.startsWith(API_PREFIX + "/") || r.path.startsWith(DEPLOY_LIMITS_PREFIX + "/"))
    .map((r) => ({ method: r.method.toLowerCase(), path: r.path.replace(/:([^/]+)/g, "{$1}") }));
}

describe("GET /openapi.json", () => {
  test("is the document @elysiajs/openapi's own plugin makes of the same routes (the generator is loaded lazily, not rewritten)", async () => {
    const withPlugin = createApp(emu.runtime).use(openapi({ path: "/plugin-docs", specPath: "/plugin-openapi.json", documentation: documentation as never }));
    const res = await withPlugin.handle(new Request("http://localhost/plugin-openapi.json"));
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual(doc);
  });

  test("is an OpenAPI 3 document with the bearer scheme", () => {
    expect(String(doc.openapi)).toMatch(/^3\./);
    expect(doc.components.securitySchemes.bearerAuth).toMatchObject({ type: "http", scheme: "bearer" });
  });

  test("documents every registered developer route, with a summary, a success and a 4xx error response", () => {
    const routes = developerRoutes();
    expect(routes.length).toBeGreaterThanOrEqual(5);
    for (const { method, path } of routes) {
      const op = doc.paths[path]?.[method];
      expect(op, `${method.toUpperCase()} ${path} is missing from /openapi.json`).toBeDefined();
      expect(typeof op.summary, `${method} ${path} summary`).toBe("string");
      const statuses = Object.keys(op.responses ?? {});
      expect(statuses.some((s) => /^2/.test(s)), `${method} ${path} success response`).toBe(true);
      const errors = statuses.filter((s) => /^4/.test(s));
      expect(errors.length, `${method} ${path} error responses`).toBeGreaterThan(0);
      for (const s of errors) {
        const schema = op.responses[s].content?.["application/json"]?.schema;
        expect(schema, `${method} ${path} ${s} schema`).toBeDefined();
        expect(JSON.stringify(schema)).toContain('"error"');
      }
      expect(statuses, `${method} ${path} 401`).toContain("401");
      for (const s of statuses.filter((s) => /^2/.test(s) && s !== "204")) {
        expect(op.responses[s].content?.["application/json"]?.schema, `${method} ${path} ${s} success schema`).toBeDefined();
      }
    }
  });

  test("documents every control-plane route under its own tag, Emulator", () => {
    const control = Object.entries(doc.paths as Record<string, Record<string, { tags?: string[] }>>).filter(([path]) => path.startsWith("/_emulator"));
    expect(control.length).toBeGreaterThanOrEqual(20);
    for (const [path, ops] of control) for (const [method, op] of Object.entries(ops)) expect(op.tags, `${method} ${path}`).toEqual(["Emulator"]);
    expect(doc.tags.map((t: { name: string }) => t.name)).toContain("Emulator");
  });

  test("each error response shows the code and status a client gets for it", () => {
    const op = doc.paths["/developer/v1/extensions/{id}"].delete;
    const example = (status: string) => op.responses[status].content["application/json"].schema.properties.error.properties;
    expect(example("401").code.examples).toEqual(["unauthorized"]);
    expect(example("404").code.examples).toEqual(["extension_not_found"]);
    expect(example("409").code.examples).toEqual(["extension_listed"]);
    expect(example("409").status.examples).toEqual([409]);
  });

  test("every developer route taking a body documents its request body schema", () => {
    for (const { method, path } of developerRoutes()) {
      if (!["post", "put", "patch"].includes(method)) continue;
      const content = doc.paths[path][method].requestBody?.content ?? {};
      const types = Object.keys(content);
      expect(types.length, `${method.toUpperCase()} ${path} request body`).toBeGreaterThan(0);
      for (const type of types) expect(content[type].schema, `${method} ${path} ${type}`).toBeDefined();
    }
  });

  test("the extensions routes carry their exact schemas", () => {
    const create = doc.paths[`${API_PREFIX}/extensions`].post;
    expect(Object.keys(create.requestBody.content)).toEqual(["application/json"]);
    const body = create.requestBody.content["application/json"].schema;
    expect(body.required).toEqual(["name"]);
    expect(Object.keys(body.properties).sort()).toEqual(["description", "name", "pricing", "short_description"]);
    expect(body.additionalProperties).toBe(false);
    expect(Object.keys(create.responses)).toEqual(expect.arrayContaining(["201", "401", "403", "415", "422"]));
    const created = create.responses["201"].content["application/json"].schema;
    expect(Object.keys(created.properties.extension.properties).sort()).toEqual(["createdAt", "id", "name", "slug", "status"]);

    const patch = doc.paths[`${API_PREFIX}/extensions/{id}`].patch;
    expect(Object.keys(patch.requestBody.content["application/json"].schema.properties)).toContain("visibility");
    expect(patch.requestBody.content["application/json"].schema.required ?? []).toEqual([]);
    expect(doc.paths[`${API_PREFIX}/extensions/{id}`].delete.responses).toHaveProperty("409");
    const list = doc.paths[`${API_PREFIX}/extensions`].get.responses["200"].content["application/json"].schema;
    expect(Object.keys(list.properties.extensions.items.properties).sort()).toEqual(
      ["createdAt", "currentVersionId", "id", "installCount", "name", "slug", "status", "updatedAt", "visibility"],
    );
  });
});

describe("GET /docs", () => {
  test("serves the UI page pointing at the embedded script, with no external script", async () => {
    const res = await emu.raw("GET", "/docs", { key: null });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toContain("text/html");
    expect(res.text).toContain('src="/docs/scalar.js"');
    // None of Scalar's cloud features (they need its servers): no AI agent, no MCP generator, no deploy toolbar.
    const config = JSON.parse(/data-configuration='([^']*)'/.exec(res.text)![1]!);
    expect(config).toMatchObject({ withDefaultFonts: false, telemetry: false, showDeveloperTools: "never", agent: { disabled: true }, mcp: { disabled: true } });
    const scripts = [...res.text.matchAll(/<script[^>]*\ssrc="([^"]+)"/g)].map((m) => m[1]);
    expect(scripts).toEqual(["/docs/scalar.js"]);
    expect(res.text).not.toMatch(/(src|href)="https?:\/\//);
    expect(res.text).not.toContain("cdn.jsdelivr");
    expect(res.text).not.toContain("fonts.googleapis");
  });

  test("/docs/scalar.js is served from the binary as JavaScript", async () => {
    const res = await emu.raw("GET", "/docs/scalar.js", { key: null });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toContain("javascript");
    expect(res.text.length).toBeGreaterThan(100_000);
  });
});
