/**
 * client/: the typed developer-API and control-plane clients against a real emulator on a real socket:
 * typed data, refusals as ApiCallError (status, code, details, method and path), the version upload from a
 * Blob and from a stream, the admin token, and the request log read live through readEvents.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { statSync } from "node:fs";
import {
  ApiCallError,
  createAdminClient,
  createApiClient,
  type Extension,
  type RequestLogEntry,
  readEvents,
  unwrap,
  versionUpload,
} from "../../client";
import { type BundleDir, bundleDir } from "../helpers/bundles";
import { DEMO_KEY, READ_KEY, startTestEmulator, stopTestEmulator, type TestEmulator } from "../helpers/emulator";

let emu: TestEmulator;
let bundles: BundleDir;
beforeAll(async () => {
  emu = await startTestEmulator();
  bundles = bundleDir();
});
afterAll(async () => {
  await stopTestEmulator(emu);
  bundles.cleanup();
});

const api = () => createApiClient({ baseUrl: emu.url, apiKey: DEMO_KEY });

test("creates, reads and lists extensions with typed data", async () => {
  const { extension } = unwrap(await api().POST("/developer/v1/extensions", { body: { name: "Client Board" } }));
  expect(extension.status).toBe("draft");
  const full: Extension = unwrap(
    await api().GET("/developer/v1/extensions/{id}", { params: { path: { id: extension.id } } }),
  );
  expect(full).toMatchObject({ id: extension.id, name: "Client Board", installCount: 0, ratingCount: 0 });
  const { extensions } = unwrap(await api().GET("/developer/v1/extensions"));
  expect(extensions.map((e) => e.id)).toContain(extension.id);
  // A 204 unwraps to nothing.
  await expect(
    unwrap(await api().DELETE("/developer/v1/extensions/{id}", { params: { path: { id: extension.id } } })),
  ).toBeUndefined();
});

test("the base URL may be given with the API's prefix", async () => {
  const client = createApiClient({ baseUrl: `${emu.baseUrl}/`, apiKey: DEMO_KEY });
  expect(unwrap(await client.GET("/developer/v1/extensions")).extensions).toBeArray();
});

test("clientName is sent as X-Ext-Client on every call; the log records it, and null for a client without one", async () => {
  const marked = createApiClient({ baseUrl: emu.url, apiKey: DEMO_KEY, clientName: "dashboard" });
  unwrap(await marked.GET("/developer/v1/extensions"));
  unwrap(await api().GET("/developer/v1/extensions"));
  const admin = createAdminClient({ url: emu.url, adminToken: emu.runtime.control.adminToken });
  const { requests } = unwrap(await admin.GET("/_emulator/requests", { params: { query: { limit: 2 } } }));
  expect(requests.map((e) => e.client)).toEqual([null, "dashboard"]);
});

test("a refusal is an ApiCallError with the server's code, message, details, method and path", async () => {
  const missing = await api().GET("/developer/v1/extensions/{id}", { params: { path: { id: "ext_missing" } } });
  const notFound = catchError(() => unwrap(missing));
  expect(notFound).toBeInstanceOf(ApiCallError);
  expect(notFound).toMatchObject({
    status: 404,
    code: "extension_not_found",
    method: "GET",
    path: "/developer/v1/extensions/ext_missing",
  });
  expect(notFound.summary).toStartWith("404 extension_not_found: ");

  const invalid = catchError(async () =>
    unwrap(await api().POST("/developer/v1/extensions", { body: { name: "x", unknownField: 1 } as never })),
  );
  expect(await invalid).toMatchObject({ status: 422, code: "validation_error", method: "POST" });
  expect((await invalid).details.length).toBeGreaterThan(0);

  const wrongKey = createApiClient({ baseUrl: emu.url, apiKey: "ext_not_a_real_key_0000000000000000000" });
  await expect(catchError(async () => unwrap(await wrongKey.GET("/developer/v1/extensions")))).resolves.toMatchObject({
    status: 401,
    code: "unauthorized",
  });
  const readOnly = createApiClient({ baseUrl: emu.url, apiKey: READ_KEY });
  await expect(
    catchError(async () => unwrap(await readOnly.POST("/developer/v1/extensions", { body: { name: "No" } }))),
  ).resolves.toMatchObject({ status: 403, code: "forbidden", path: "/developer/v1/extensions" });
});

test("submits a version from a Blob and from a stream with its size", async () => {
  const { extension } = unwrap(await api().POST("/developer/v1/extensions", { body: { name: "Upload Board" } }));
  const path = { path: { id: extension.id } };
  const file = await bundles.make();

  const fromBlob = unwrap(
    await api().POST("/developer/v1/extensions/{id}/versions", {
      params: path,
      ...versionUpload({ version: "1.0.0", changelog: "First", bundle: Bun.file(file) }),
    }),
  );
  expect(fromBlob.version).toMatchObject({ version: "1.0.0", status: "pending" });

  const fromStream = unwrap(
    await api().POST("/developer/v1/extensions/{id}/versions", {
      params: path,
      ...versionUpload({ version: "1.0.1", bundle: { stream: Bun.file(file).stream(), size: statSync(file).size } }),
    }),
  );
  expect(fromStream.version).toMatchObject({ version: "1.0.1", status: "pending" });

  const { versions } = unwrap(await api().GET("/developer/v1/extensions/{id}/versions", { params: path }));
  expect(versions.map((v) => [v.version, v.changelog, v.bundleSizeBytes])).toEqual(
    expect.arrayContaining([
      ["1.0.0", "First", statSync(file).size],
      ["1.0.1", "", statSync(file).size],
    ]),
  );
});

test("the admin client sends the admin token it is given, asked before each request", async () => {
  const seen: (string | null)[] = [];
  let token: string | null = "first-token";
  const admin = createAdminClient({
    url: emu.url,
    adminToken: () => token,
    fetch: (request) => {
      seen.push(request.headers.get("authorization"));
      return fetch(request);
    },
  });
  // A wrong one is refused, the right one opens it, none is refused: each asked for before its request.
  expect((await admin.GET("/_emulator/state")).response.status).toBe(401);
  token = emu.runtime.control.adminToken;
  expect((await admin.GET("/_emulator/state")).response.status).toBe(200);
  token = null;
  expect((await admin.GET("/_emulator/state")).response.status).toBe(401);
  expect(seen).toEqual(["Bearer first-token", `Bearer ${emu.runtime.control.adminToken}`, null]);
});

test("readEvents gives the live request log, one parsed entry per event", async () => {
  const admin = createAdminClient({ url: emu.url, adminToken: emu.runtime.control.adminToken });
  const controller = new AbortController();
  const result = await admin.GET("/_emulator/requests/stream", {
    params: { query: { recent: 0 } },
    parseAs: "stream",
    signal: controller.signal,
  });
  unwrap(result);
  const events = readEvents<RequestLogEntry>(result.response);
  const first = events.next();
  await api().GET("/developer/v1/extensions/{id}", { params: { path: { id: "ext_streamed" } } });
  const { value } = await first;
  expect(value).toMatchObject({ method: "GET", path: "/developer/v1/extensions/ext_streamed", status: 404 });
  await events.return();
  controller.abort();
});

function catchError(fn: () => unknown): ApiCallError;
function catchError(fn: () => Promise<unknown>): Promise<ApiCallError>;
function catchError(fn: () => unknown): ApiCallError | Promise<ApiCallError> {
  const fail = () => {
    throw new Error("expected an ApiCallError");
  };
  try {
    const out = fn();
    if (out instanceof Promise)
      return out.then(fail, (e: unknown) => {
        if (e instanceof ApiCallError) return e;
        throw e;
      });
  } catch (e) {
    if (e instanceof ApiCallError) return e;
    throw e;
  }
  return fail();
}
