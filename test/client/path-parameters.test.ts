/**
 * A path parameter the caller did not give (undefined, null or "") is refused by client/ with a clear error
 * before any request is sent: `{versionId}` never travels literally in a URL, and an empty id never reaches
 * another route. Every request goes through a counting fetch to a real emulator, so "nothing was sent" is seen.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { createAdminClient, createApiClient, PathParameterError } from "../../client";
import { DEMO_KEY, startTestEmulator, stopTestEmulator, type TestEmulator } from "../helpers/emulator";

let emu: TestEmulator;
beforeAll(async () => {
  emu = await startTestEmulator();
});
afterAll(async () => {
  await stopTestEmulator(emu);
});

const sent: string[] = [];
const counting = (request: Request) => {
  sent.push(`${request.method} ${new URL(request.url).pathname}`);
  return fetch(request);
};

test("a missing path parameter is refused, naming the call and the parameter; nothing is sent", async () => {
  const api = createApiClient({ baseUrl: emu.url, apiKey: DEMO_KEY, fetch: counting });
  sent.length = 0;
  const missing = api.GET("/developer/v1/extensions/{id}/versions", { params: { path: { id: undefined as never } } });
  await expect(missing).rejects.toThrow(
    new PathParameterError("GET", "/developer/v1/extensions/{id}/versions", "id", undefined),
  );
  await expect(missing).rejects.toThrow(
    "GET /developer/v1/extensions/{id}/versions: the path parameter id is missing (undefined); nothing was sent",
  );
  // Untyped callers (JavaScript) can leave out `params` altogether.
  await expect((api.GET as (path: string) => Promise<unknown>)("/developer/v1/extensions/{id}")).rejects.toThrow(
    "GET /developer/v1/extensions/{id}: the path parameter id is missing (undefined); nothing was sent",
  );
  expect(sent).toEqual([]);
});

test("an empty or null path parameter of the control plane is refused too (the user trial's approveVersion)", async () => {
  const admin = createAdminClient({ url: emu.url, adminToken: () => emu.runtime.control.adminToken, fetch: counting });
  sent.length = 0;
  await expect(
    admin.POST("/_emulator/versions/{versionId}/approve", { params: { path: { versionId: "" } } }),
  ).rejects.toThrow(
    "POST /_emulator/versions/{versionId}/approve: the path parameter versionId is empty; nothing was sent",
  );
  await expect(
    admin.POST("/_emulator/versions/{versionId}/approve", { params: { path: { versionId: null as never } } }),
  ).rejects.toThrow("the path parameter versionId is missing (null)");
  expect(sent).toEqual([]);
});

test("a given path parameter goes through, encoded, and the server answers", async () => {
  const api = createApiClient({ baseUrl: emu.url, apiKey: DEMO_KEY, fetch: counting });
  sent.length = 0;
  const { response } = await api.GET("/developer/v1/extensions/{id}", { params: { path: { id: "ext_no such" } } });
  expect(response.status).toBe(404);
  expect(sent).toEqual(["GET /developer/v1/extensions/ext_no%20such"]);
});
