/**
 * /openapi.json documents every route the app registers — operation id, tag, security, every error code
 * with its example, response headers, named schemas, exact integer types — and /docs serves its UI from
 * the binary with no CDN. The checks walk the registered routes, so a route added later is held to the
 * same bar.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import Ajv2020 from "ajv/dist/2020";
import { API_PREFIX, DEPLOY_LIMITS_PREFIX } from "../../common/addresses";
import { documentation } from "../../server/docs/openapi";
import { ERROR_EXAMPLES, type ErrorCode, statusOf } from "../../server/errors/codes";
import { SOUND_MEDIA_TYPES } from "../../server/resources/versions/admin-model";
import { createApp, everyRoute } from "../../server/start/app";
import { createExtension } from "../helpers/bundles";
import { errorOf, startTestEmulator, stopTestEmulator, type TestEmulator } from "../helpers/emulator";

let emu: TestEmulator;
let doc: any;
let allRoutes: Awaited<ReturnType<typeof everyRoute>>["routes"];
beforeAll(async () => {
  emu = await startTestEmulator();
  allRoutes = (await everyRoute(emu.runtime)).routes;
  const res = await emu.rawRequest("GET", "/openapi.json");
  expect(res.status).toBe(200);
  doc = res.body;
});
afterAll(() => stopTestEmulator(emu));

/** A control-plane body the document refuses (so the typed client would not send it), sent raw as the owner. */
const owner = (method: string, path: string, json: unknown) =>
  emu.rawRequest(method, path, { key: emu.runtime.control.adminToken, json });

const isDeveloperPath = (path: string) =>
  path.startsWith(`${API_PREFIX}/`) || path.startsWith(`${DEPLOY_LIMITS_PREFIX}/`);

/** Every route the app registers and does not hide, as OpenAPI paths. */
function registeredRoutes(): { method: string; path: string }[] {
  return allRoutes
    .filter((r) => !(r.hooks as { detail?: { hide?: boolean } })?.detail?.hide)
    .map((r) => ({ method: r.method.toLowerCase(), path: r.path.replace(/:([^/]+)/g, "{$1}") }));
}

function operations(): { method: string; path: string; op: any }[] {
  return Object.entries(doc.paths as Record<string, Record<string, any>>).flatMap(([path, item]) =>
    Object.entries(item).map(([method, op]) => ({ method, path, op })),
  );
}

/** Follows a `$ref` into components. */
const deref = (schema: any): any =>
  schema?.$ref ? doc.components.schemas[schema.$ref.replace("#/components/schemas/", "")] : schema;

/** Every schema object of the document, with where it is. */
function* schemas(node: unknown, where = "#"): Generator<[string, any]> {
  if (Array.isArray(node)) for (const [i, v] of node.entries()) yield* schemas(v, `${where}/${i}`);
  else if (node && typeof node === "object") {
    yield [where, node];
    for (const [k, v] of Object.entries(node))
      if (k !== "examples" && k !== "example") yield* schemas(v, `${where}/${k}`);
  }
}

describe("GET /openapi.json", () => {
  test('names the address the server listens on, so the docs UI\'s "try it" reaches it; in process, the default', async () => {
    expect(emu.url).not.toBe("http://127.0.0.1:4780");
    expect(doc.servers).toEqual([{ url: emu.url, description: "This emulator" }]);
    const inProcess = await (await createApp(emu.runtime).handle(new Request("http://localhost/openapi.json"))).json();
    expect((inProcess as { servers: unknown }).servers).toEqual(documentation.servers);
  });

  test("the sets the spec leaves open stay open in answers: known values listed, any other string accepted", () => {
    const ajv = new Ajv2020({ strict: false });
    const accepts = (schema: unknown, value: unknown) => ajv.validate({ ...(schema as object), $defs: {} }, value);
    const open: [string, string, string[]][] = [
      ["Extension", "visibility", ["public"]],
      ["Extension", "status", ["draft", "approved"]],
      ["ExtensionSummary", "visibility", ["public"]],
      ["ExtensionSummary", "status", ["draft", "approved"]],
      ["Version", "status", ["pending", "approved"]],
    ];
    for (const [model, field, known] of open) {
      const schema = deref(doc.components.schemas[model]).properties[field];
      for (const value of [...known, "a_value_the_platform_may_add"])
        expect(accepts(schema, value), `${model}.${field} = ${value}`).toBe(true);
      expect(schema["x-known-values"], `${model}.${field}`).toEqual(expect.arrayContaining(known));
    }
    const pricing = deref(deref(doc.components.schemas.Extension).properties.pricing);
    expect(accepts(pricing.properties.type, "subscription")).toBe(true);
    expect(pricing.additionalProperties).not.toBe(false);
  });

  test("what the spec fixes stays fixed: a created extension is a draft, a submitted version pending", () => {
    const created = deref(doc.components.schemas.ExtensionCreated).properties.extension.properties.status;
    expect(created.const ?? created.enum).toEqual(created.const ? "draft" : ["draft"]);
    const submitted = deref(doc.components.schemas.VersionSubmitted).properties.version.properties.status;
    expect(submitted.const ?? submitted.enum).toEqual(submitted.const ? "pending" : ["pending"]);
  });

  test("a blank name is refused by the schema, as the server refuses it", async () => {
    const ajv = new Ajv2020({ strict: false });
    for (const model of ["ExtensionCreate", "ExtensionUpdate"]) {
      const name = deref(doc.components.schemas[model]).properties.name;
      for (const blank of [" ", "\t\n ", "\u00a0"])
        expect(ajv.validate(name, blank), `${model} ${JSON.stringify(blank)}`).toBe(false);
      expect(ajv.validate(name, " Sound Board ")).toBe(true);
    }
    const res = await emu.client.POST("/developer/v1/extensions", { body: { name: " \t " } });
    expect(res.response.status).toBe(422);
  });

  test("every 429 requires Retry-After", () => {
    const tooMany = operations().filter(({ op }) => op.responses?.["429"]);
    expect(tooMany.length).toBeGreaterThan(0);
    for (const { method, path, op } of tooMany)
      expect(op.responses["429"].headers?.["Retry-After"]?.required, `${method} ${path}`).toBe(true);
  });

  test("a control-plane body that needs one of several fields says so", async () => {
    const ajv = new Ajv2020({ strict: false });
    const clock = deref(doc.components.schemas.ClockChange);
    for (const body of [{}, { freeze: true }, { advanceSeconds: 1, mode: "real" }]) {
      expect(ajv.validate(clock, body), JSON.stringify(body)).toBe(false);
      expect((await owner("POST", "/_emulator/clock", body)).status, JSON.stringify(body)).toBe(422);
    }
    for (const body of [{ advanceSeconds: 1 }, { set: "2030-01-01T00:00:00.000Z", freeze: true }, { mode: "real" }])
      expect(ajv.validate(clock, body), JSON.stringify(body)).toBe(true);

    // Its `limits` is a reference into the document: the validator is given the components to follow it.
    ajv.addSchema({ $id: "doc", components: doc.components });
    const request = { $ref: "doc#/components/schemas/LimitRequestCreate" };
    const reason = "Launch week needs more sounds";
    const base = { accountId: "acc_test", limits: { max_sounds_per_extension: 60 } };
    const refused = [
      { ...base, scope: "extension", reason },
      { ...base, scope: "account", extensionId: "ext_x", reason },
      { ...base, scope: "account", reason: ` ${" ".repeat(18)}x${" ".repeat(5)}` },
    ];
    for (const body of refused) {
      expect(ajv.validate(request, body), JSON.stringify(body)).toBe(false);
      expect((await owner("POST", "/_emulator/limit-requests", body)).status, JSON.stringify(body)).toBe(422);
    }
    expect(ajv.validate(request, { ...base, scope: "account", reason: `  ${reason}  ` })).toBe(true);
  });

  test("is an OpenAPI 3.1 document with info (version, license), the local server and both security schemes", () => {
    expect(String(doc.openapi)).toMatch(/^3\.1\./);
    expect(doc.info.version).toMatch(/^\d+\.\d+\.\d+/);
    expect(doc.info.license).toEqual({ name: "MIT", identifier: "MIT" });
    expect(doc.servers).toEqual([expect.objectContaining({ url: emu.url })]);
    expect(doc.components.securitySchemes.bearerAuth).toMatchObject({ type: "http", scheme: "bearer" });
    // Of another type, so a generator that picks a credential by scheme type can tell the two apart.
    expect(doc.components.securitySchemes.adminToken).toMatchObject({
      type: "apiKey",
      in: "header",
      name: "Authorization",
    });
    // A header only: a cookie would go to every port of the host (another local user's server too).
    expect(doc.components.securitySchemes.dashboardSession).toMatchObject({
      type: "apiKey",
      in: "header",
      name: "X-Ext-Session",
    });
  });

  test("writes every map as additionalProperties of its value type, never patternProperties", () => {
    const patterned = [...schemas(doc)].filter(([, node]) => "patternProperties" in node).map(([where]) => where);
    expect(patterned).toEqual([]);
    const integerMap = (schema: any) => expect(schema.additionalProperties).toMatchObject({ type: "integer" });
    integerMap(deref(doc.components.schemas.InstallStatistics).properties.byVersion);
    integerMap(deref(doc.components.schemas.LimitValues));
    const fixture = doc.components.schemas.Fixture;
    const account = fixture.properties.accounts.items;
    expect(JSON.stringify(account)).toContain('"additionalProperties":{');
  });

  test("documents every registered route, and nothing else", () => {
    const registered = registeredRoutes()
      .map(({ method, path }) => `${method} ${path}`)
      .sort();
    const documented = operations()
      .map(({ method, path }) => `${method} ${path}`)
      .sort();
    expect(registered.length).toBeGreaterThanOrEqual(45);
    expect(documented).toEqual(registered);
  });

  test("every operation has a readable unique operationId, a declared tag, a summary and its security", () => {
    const ids = new Set<string>();
    const tagNames = doc.tags.map((t: { name: string }) => t.name);
    for (const { method, path, op } of operations()) {
      const where = `${method.toUpperCase()} ${path}`;
      expect(op.operationId, where).toMatch(/^[a-z]+[A-Z][A-Za-z]*$/);
      expect(ids.has(op.operationId), `${where}: duplicate operationId ${op.operationId}`).toBe(false);
      ids.add(op.operationId);
      expect(op.tags?.length, `${where} tags`).toBe(1);
      expect(tagNames, `${where} tag`).toContain(op.tags[0]);
      expect(typeof op.summary, `${where} summary`).toBe("string");
      const security =
        path === "/healthz"
          ? []
          : isDeveloperPath(path)
            ? [{ bearerAuth: [] }]
            : [{ adminToken: [] }, { dashboardSession: [] }];
      expect(op.security, `${where} security`).toEqual(security);
      if (path.startsWith("/_emulator")) expect(op.tags, where).toEqual(["Emulator"]);
    }
  });

  test("the developer API's operations have the names a client generator shows", () => {
    const ids = operations()
      .filter(({ path }) => path.startsWith(API_PREFIX))
      .map(({ op }) => op.operationId)
      .sort();
    expect(ids).toEqual(
      [
        "listExtensions",
        "getExtension",
        "createExtension",
        "updateExtension",
        "deleteExtension",
        "listVersions",
        "submitVersion",
        "getInstallStatistics",
        "listSecretKeys",
        "putSecret",
        "deleteSecret",
        "getLimits",
      ].sort(),
    );
    expect(doc.paths[`${DEPLOY_LIMITS_PREFIX}/extensions/{id}/limits`].get.operationId).toBe("getDeployLimits");
    const groups = doc["x-tagGroups"].map((g: { name: string; tags: string[] }) => [g.name, g.tags]);
    expect(groups).toEqual([
      ["Developer API", ["Extensions", "Versions", "Installs", "Secrets", "Limits"]],
      ["Emulator", ["Emulator", "Health"]],
    ]);
  });

  test("every error response lists exactly its codes as an enum, one valid example each, with the envelope as Error", () => {
    for (const { method, path, op } of operations()) {
      const errorStatuses = Object.keys(op.responses).filter((s) => Number(s) >= 400);
      if (path !== "/healthz")
        expect(errorStatuses, `${method} ${path}`).toEqual(expect.arrayContaining(["401", "500"]));
      for (const status of errorStatuses) {
        const where = `${method.toUpperCase()} ${path} ${status}`;
        const schema = op.responses[status].content["application/json"].schema;
        expect(schema.allOf[0], where).toEqual({ $ref: "#/components/schemas/Error" });
        const narrowed = schema.allOf[1].properties.error.properties;
        const codes: ErrorCode[] = narrowed.code.enum;
        expect(codes.length, where).toBeGreaterThan(0);
        for (const code of codes) {
          expect(Object.keys(ERROR_EXAMPLES), where).toContain(code);
          expect(statusOf(code), `${where} ${code}`).toBe(Number(status));
        }
        expect(narrowed.status, where).toEqual({ type: "integer", const: Number(status) });
        expect(
          schema.examples.map((e: any) => e.error.code),
          where,
        ).toEqual(codes);
        for (const e of schema.examples) {
          expect(e.error.status, where).toBe(Number(status));
          expect(typeof e.error.message, where).toBe("string");
        }
        for (const code of codes) expect(op.responses[status].description, where).toContain(`\`${code}\``);
      }
    }
  });

  test("response headers: rate-limit headers on every authenticated developer response, Retry-After on 429, WWW-Authenticate on 401", () => {
    const integer = { type: "integer" };
    for (const { method, path, op } of operations()) {
      for (const [status, response] of Object.entries(op.responses as Record<string, any>)) {
        const where = `${method.toUpperCase()} ${path} ${status}`;
        const headers = response.headers ?? {};
        if (status === "401") expect(headers["WWW-Authenticate"]?.schema?.type, where).toBe("string");
        if (status === "429") expect(headers["Retry-After"]?.schema, where).toMatchObject({ ...integer, minimum: 1 });
        if (isDeveloperPath(path) && status !== "401") {
          for (const h of ["X-RateLimit-Limit", "X-RateLimit-Remaining", "X-RateLimit-Reset"])
            expect(headers[h]?.schema, `${where} ${h}`).toMatchObject(integer);
        }
        if (!isDeveloperPath(path))
          expect(
            Object.keys(headers).filter((h) => h.startsWith("X-RateLimit")),
            where,
          ).toEqual([]);
      }
    }
  });

  test("a 204 has no content; every other success has a JSON schema, but the three that are not JSON, under their own media types", () => {
    // The request stream is Server-Sent Events; a sound is audio bytes; an export is a tar. Nothing else may leave JSON.
    const notJson: Record<string, { types: string[]; schema: object }> = {
      streamRequests: { types: ["text/event-stream"], schema: { type: "string" } },
      exportState: { types: ["application/x-tar"], schema: { type: "string" } },
      getVersionSound: { types: Object.values(SOUND_MEDIA_TYPES), schema: { type: "string", format: "binary" } },
    };
    let noContent = 0;
    const seen: string[] = [];
    for (const { method, path, op } of operations()) {
      for (const [status, response] of Object.entries(op.responses as Record<string, any>)) {
        if (!/^2/.test(status)) continue;
        const where = `${method} ${path} ${status}`;
        if (status === "204") {
          noContent++;
          expect(response.content, `${method} ${path}`).toBeUndefined();
        } else if (notJson[op.operationId]) {
          seen.push(op.operationId);
          const { types, schema } = notJson[op.operationId]!;
          expect(Object.keys(response.content ?? {}), where).toEqual(types);
          for (const type of types) expect(response.content[type].schema, `${where} ${type}`).toMatchObject(schema);
          expect(JSON.stringify(response.content), where).not.toContain("x-media-types");
        } else {
          expect(Object.keys(response.content ?? {}), where).toEqual(["application/json"]);
          expect(response.content?.["application/json"]?.schema, where).toBeDefined();
        }
      }
    }
    expect(noContent).toBeGreaterThanOrEqual(10);
    expect(seen.sort()).toEqual(Object.keys(notJson).sort());
  });

  test("integers are plain integers: no string-or-integer unions, no $id left, no default of the wrong type", () => {
    for (const [where, s] of schemas(doc)) {
      expect(s.format === "integer" && s.type === "string", where).toBe(false);
      expect(s.$id, where).toBeUndefined();
      if (s.type === "integer" && "default" in s) expect(Number.isInteger(s.default), where).toBe(true);
      if (s.type === "string" && "default" in s) expect(typeof s.default, where).toBe("string");
    }
    const ints = [...schemas(doc)].filter(([, s]) => s.type === "integer").length;
    expect(ints).toBeGreaterThan(40);
  });

  test("the models are named components, referenced with $ref", () => {
    const names = Object.keys(doc.components.schemas);
    for (const name of [
      "Extension",
      "ExtensionSummary",
      "ExtensionCreated",
      "ExtensionCreate",
      "ExtensionUpdate",
      "Pricing",
      "Version",
      "VersionSubmitted",
      "InstallStatistics",
      "SecretKeys",
      "SecretValue",
      "Limits",
      "ResolvedLimit",
      "SoundLimits",
      "LimitUsage",
      "Error",
      "ErrorDetail",
      "ClockState",
      "FaultRule",
      "EmulatorState",
      "ApiKey",
      "TeamMember",
      "LimitRequest",
      "LimitOverrides",
      "Fixture",
      "SeedReport",
    ])
      expect(names, name).toContain(name);
    const refs = new Set([...schemas(doc)].map(([, s]) => s.$ref).filter(Boolean));
    for (const name of names) expect(refs.has(`#/components/schemas/${name}`), `${name} is referenced`).toBe(true);
    const get = doc.paths[`${API_PREFIX}/extensions/{id}`].get;
    expect(get.responses["200"].content["application/json"].schema).toEqual({ $ref: "#/components/schemas/Extension" });
  });

  test("every developer route taking a body documents its request body schema; the submission is multipart", () => {
    for (const { method, path } of registeredRoutes().filter(({ path }) => isDeveloperPath(path))) {
      if (!["post", "put", "patch"].includes(method)) continue;
      const content = doc.paths[path][method].requestBody?.content ?? {};
      const types = Object.keys(content);
      expect(types.length, `${method.toUpperCase()} ${path} request body`).toBe(1);
      expect(deref(content[types[0]!].schema)?.type, `${method} ${path}`).toBe("object");
    }
    const submit = doc.paths[`${API_PREFIX}/extensions/{id}/versions`].post.requestBody.content;
    expect(Object.keys(submit)).toEqual(["multipart/form-data"]);
    const form = deref(submit["multipart/form-data"].schema);
    expect(form.required).toEqual(["version", "bundle"]);
    expect(form.properties.bundle).toMatchObject({ type: "string", format: "binary" });
    expect(form.properties.bundle.default).toBeUndefined();
  });

  test("the extensions routes carry their exact schemas", () => {
    const create = doc.paths[`${API_PREFIX}/extensions`].post;
    expect(Object.keys(create.requestBody.content)).toEqual(["application/json"]);
    const body = deref(create.requestBody.content["application/json"].schema);
    expect(body.required).toEqual(["name"]);
    expect(Object.keys(body.properties).sort()).toEqual(["description", "name", "pricing", "short_description"]);
    expect(body.additionalProperties).toBe(false);
    // The server trims first, so the validator has no maxLength; the document still tells clients the bound.
    expect(body.properties.name).toMatchObject({ type: "string", minLength: 1, maxLength: 80 });
    expect(Object.keys(create.responses).sort()).toEqual(["201", "401", "403", "413", "415", "422", "429", "500"]);
    expect(
      create.responses["422"].content["application/json"].schema.allOf[1].properties.error.properties.code.enum,
    ).toEqual(["validation_error", "limit_exceeded"]);
    const created = deref(create.responses["201"].content["application/json"].schema);
    expect(Object.keys(created.properties.extension.properties).sort()).toEqual([
      "createdAt",
      "id",
      "name",
      "slug",
      "status",
    ]);

    const patch = doc.paths[`${API_PREFIX}/extensions/{id}`].patch;
    const update = deref(patch.requestBody.content["application/json"].schema);
    expect(Object.keys(update.properties)).toContain("visibility");
    expect(update.required ?? []).toEqual([]);
    const del = doc.paths[`${API_PREFIX}/extensions/{id}`].delete.responses;
    expect(del["409"].content["application/json"].schema.allOf[1].properties.error.properties.code.enum).toEqual([
      "extension_listed",
    ]);
    const list = deref(doc.paths[`${API_PREFIX}/extensions`].get.responses["200"].content["application/json"].schema);
    expect(list.properties.extensions.items).toEqual({ $ref: "#/components/schemas/ExtensionSummary" });
    const summary = doc.components.schemas.ExtensionSummary;
    expect(Object.keys(summary.properties).sort()).toEqual([
      "createdAt",
      "currentVersionId",
      "id",
      "installCount",
      "name",
      "slug",
      "status",
      "updatedAt",
      "visibility",
    ]);
    expect(summary.properties.installCount).toEqual({ type: "integer", minimum: 0 });
  });

  test("a version submission's 409 names version_exists; a query integer is documented as an integer", () => {
    const submit = doc.paths[`${API_PREFIX}/extensions/{id}/versions`].post;
    const conflict = submit.responses["409"].content["application/json"].schema;
    expect(conflict.allOf[1].properties.error.properties.code.enum).toEqual(["version_exists"]);
    expect(conflict.examples[0].error.message).toContain("already exists");
    const limit = doc.paths["/_emulator/requests"].get.parameters.find((p: { name: string }) => p.name === "limit");
    expect(limit.schema).toMatchObject({ type: "integer", minimum: 1 });
  });
});

describe("integers as the document types them", () => {
  test("a JSON body's integer written as a string is a 422, as the document's `integer` says; a query integer is still text", async () => {
    const ext = await createExtension(emu, "Integers");
    const refused = [
      await owner("POST", `/_emulator/extensions/${ext}/installs`, { count: "5" }),
      await owner("PUT", `/_emulator/overrides/extensions/${ext}`, { max_sounds_per_extension: "80" }),
      await owner("POST", "/_emulator/faults", { path: "/extensions", status: "503" }),
    ];
    for (const res of refused) expect([res.status, errorOf(res.body)?.code]).toEqual([422, "validation_error"]);
    expect(errorOf(refused[0]?.body)?.details?.[0]?.field).toBe("count");
    const override = await emu.control.PUT("/_emulator/overrides/extensions/{id}", {
      params: { path: { id: ext } },
      body: { max_sounds_per_extension: 80 },
    });
    expect(override.response.status).toBe(200);
    expect((await emu.control.GET("/_emulator/requests", { params: { query: { limit: 5 } } })).response.status).toBe(
      200,
    );
  });
});

describe("error codes", () => {
  test("every code the catalog can answer with has its example, of the same status", async () => {
    // The catalogue (server/errors/catalog.ts) is made of these files' messages.
    const files = ["message-parts", "request-errors", "resource-errors", "control-errors"];
    const sources = await Promise.all(
      files.map((f) => Bun.file(new URL(`../../server/errors/${f}.ts`, import.meta.url)).text()),
    );
    const source = sources.join("\n");
    const declared = [...source.matchAll(/new ApiError\(\s*(\d{3}),\s*"([a-z_]+)"/g)].map(
      (m) => [m[2]!, Number(m[1])] as const,
    );
    expect(declared.length).toBeGreaterThan(20);
    for (const [code, status] of declared) {
      expect(Object.keys(ERROR_EXAMPLES), code).toContain(code);
      expect(statusOf(code as ErrorCode), code).toBe(status);
    }
    for (const [code, make] of Object.entries(ERROR_EXAMPLES)) expect(make().code).toBe(code);
  });
});

describe("GET /docs", () => {
  test("serves the UI page pointing at the embedded script, with no external script", async () => {
    const res = await emu.rawRequest("GET", "/docs");
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toContain("text/html");
    expect(res.text).toContain('src="/docs/scalar.js"');
    // None of Scalar's cloud features (they need its servers): no AI agent, no MCP generator, no deploy toolbar.
    const config = JSON.parse(/data-configuration='([^']*)'/.exec(res.text)![1]!);
    expect(config).toMatchObject({
      withDefaultFonts: false,
      telemetry: false,
      showDeveloperTools: "never",
      agent: { disabled: true },
      mcp: { disabled: true },
    });
    const scripts = [...res.text.matchAll(/<script[^>]*\ssrc="([^"]+)"/g)].map((m) => m[1]);
    expect(scripts).toEqual(["/docs/scalar.js"]);
    expect(res.text).not.toMatch(/(src|href)="https?:\/\//);
    expect(res.text).not.toContain("cdn.jsdelivr");
    expect(res.text).not.toContain("fonts.googleapis");
  });

  test("/docs/scalar.js is served from the binary as JavaScript", async () => {
    const res = await emu.rawRequest("GET", "/docs/scalar.js");
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toContain("javascript");
    expect(res.text.length).toBeGreaterThan(100_000);
  });
});
