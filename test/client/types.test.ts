/**
 * What the client's types refuse, checked by `npm run typecheck` (each `@ts-expect-error` must be needed, or
 * tsc fails): a path the API does not have, a control-plane path on the developer client and the reverse, a
 * misspelt field, a wrong type. The test body only makes sure the file is part of the suite.
 */
import { expect, test } from "bun:test";
import {
  type AdminClient,
  type ApiClient,
  createAdminClient,
  createApiClient,
  type ExtensionCreated,
} from "../../client";

async function misuses(api: ApiClient, admin: AdminClient): Promise<void> {
  // @ts-expect-error: no such path
  await api.GET("/developer/v1/extensionz");
  // @ts-expect-error: the control plane is not on the developer client
  await api.GET("/_emulator/state");
  // @ts-expect-error: the developer API is not on the admin client
  await admin.GET("/developer/v1/extensions");
  // @ts-expect-error: a misspelt field of the body
  await api.POST("/developer/v1/extensions", { body: { nmae: "x" } });
  // @ts-expect-error: the path parameter is required
  await api.GET("/developer/v1/extensions/{id}");
  const created = await api.POST("/developer/v1/extensions", { body: { name: "x" } });
  if (created.data) {
    const extension: ExtensionCreated["extension"] = created.data.extension;
    const id: string = extension.id;
    // @ts-expect-error: installCount is a number, not a string
    const count: string = (await api.GET("/developer/v1/extensions/{id}", { params: { path: { id } } })).data!
      .installCount;
    void count;
  }
}

test("the misuses above are type errors (checked by npm run typecheck)", () => {
  expect(typeof misuses).toBe("function");
  expect(createApiClient({ baseUrl: "http://127.0.0.1:1", apiKey: "k" }).GET).toBeFunction();
  expect(createAdminClient({ url: "http://127.0.0.1:1" }).GET).toBeFunction();
});
