/**
 * Every call goes through the client generated from the emulator's OpenAPI document: paths, parameters,
 * bodies and responses are typed by src/api.d.ts, so a field the server does not have, or a number
 * treated as a string, is a compile error.
 */
import createClient from "openapi-fetch";
import type { components, paths } from "./api";

export type Extension = components["schemas"]["Extension"];

export interface Tour {
  extension: Extension;
  listed: number;
  versionStatus: "pending";
  installs: { total: number; active: number };
  soundLimit: number;
  secretKeys: string[];
}

/** Fails with the API's own error code and message. */
function check<T>(result: { data?: T; error?: { error: { code: string; message: string } }; response: Response }): T {
  if (result.data !== undefined) return result.data;
  if (result.error)
    throw new Error(`${result.response.status} ${result.error.error.code}: ${result.error.error.message}`);
  if (result.response.ok) return undefined as T;
  throw new Error(`HTTP ${result.response.status}`);
}

/** Creates an extension, lists, submits a version, reads installs and limits, and manages a secret. */
export async function tour(origin: string, apiKey: string, bundle: Blob): Promise<Tour> {
  const api = createClient<paths>({ baseUrl: origin, headers: { Authorization: `Bearer ${apiKey}` } });

  const { extension: created } = check(
    await api.POST("/developer/v1/extensions", {
      body: { name: "Typed Client Board", short_description: "Made by the typed client" },
    }),
  );
  const id = created.id;
  const list = check(await api.GET("/developer/v1/extensions"));
  const extension = check(await api.GET("/developer/v1/extensions/{id}", { params: { path: { id } } }));
  // An integer of the document is a number here: no string | number to narrow.
  const installCount: number = extension.installCount;

  const submitted = check(
    await api.POST("/developer/v1/extensions/{id}/versions", {
      params: { path: { id } },
      // openapi-typescript types a binary form field as string; the serializer sends the file itself.
      body: { version: "1.0.0", changelog: "First release", bundle: bundle as unknown as string },
      bodySerializer: (body) => {
        const form = new FormData();
        form.append("version", body.version);
        if (body.changelog !== undefined) form.append("changelog", body.changelog);
        form.append("bundle", body.bundle as unknown as Blob, "bundle.tar.gz");
        return form;
      },
    }),
  );

  const stats = check(await api.GET("/developer/v1/extensions/{id}/installs", { params: { path: { id } } }));
  const limits = check(await api.GET("/developer/v1/extensions/{id}/limits", { params: { path: { id } } }));

  check(
    await api.PUT("/developer/v1/extensions/{id}/secrets/{key}", {
      params: { path: { id, key: "API_TOKEN" } },
      body: { value: "typed-client-secret" },
    }),
  );
  const { keys } = check(await api.GET("/developer/v1/extensions/{id}/secrets", { params: { path: { id } } }));
  check(
    await api.DELETE("/developer/v1/extensions/{id}/secrets/{key}", { params: { path: { id, key: "API_TOKEN" } } }),
  );

  return {
    extension: { ...extension, installCount },
    listed: list.extensions.length,
    versionStatus: submitted.version.status,
    installs: { total: stats.total, active: stats.active },
    soundLimit: limits.sounds.resolvedLimit,
    secretKeys: keys,
  };
}
