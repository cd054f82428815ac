/** Checks of versions, install statistics and the limits endpoint (spec §2, §4, §8) on the scratch extension. */
import { versionUpload } from "../../client/index";
import { smallestBundle } from "./bundle";
import { MISSING_ID } from "./checks-extensions";
import { fieldProblems, isObject, topLevel } from "./shape";
import { INSTALLS, VERSION, VERSION_OPTIONAL, VERSION_SUBMITTED } from "./spec";
import { attempt, type Context, choice, judge, lastJson } from "./step";

const VERSIONS = "/developer/v1/extensions/{id}/versions";
export const VERSION_LABEL = "0.0.1-conformance";
const NOT_FOUND = { status: 404, describe: "extension_not_found envelope", error: { code: "extension_not_found" } };

export const versionsRule = (b: unknown) =>
  isObject(b) && Array.isArray(b.versions)
    ? b.versions.flatMap((v, i) => [
        ...fieldProblems(`versions[${i}]`, v, VERSION, VERSION_OPTIONAL),
        ...(isObject(v) && v.status === "approved" && !("approvedAt" in v)
          ? [`versions[${i}] is approved without approvedAt`]
          : []),
      ])
    : [`the body should be {versions: [...]}, got ${topLevel(b)}`];

export async function versionChecks(ctx: Context, id: string): Promise<void> {
  const api = ctx.api;
  const path = { params: { path: { id } } };
  await attempt(ctx, () => api.GET(VERSIONS, path));
  judge(
    ctx,
    { id: "versions.list-empty", group: "versions", name: "GET /extensions/:id/versions of a new extension" },
    {
      status: 200,
      describe: "{versions: []}",
      body: (b) => [
        ...versionsRule(b),
        ...(isObject(b) && Array.isArray(b.versions) && b.versions.length > 0
          ? ["a new extension should have no versions"]
          : []),
      ],
    },
  );
  const bundle = await smallestBundle();
  ctx.bundleBytes = bundle.length;
  const upload = versionUpload({
    version: VERSION_LABEL,
    changelog: "Conformance run.",
    bundle: new Blob([bundle], { type: "application/gzip" }),
  });
  await attempt(ctx, () => api.POST(VERSIONS, { ...path, ...upload }));
  const submitted = lastJson(ctx);
  const version = isObject(submitted) && isObject(submitted.version) ? submitted.version : null;
  if (version && typeof version.id === "string") ctx.versionId = version.id;
  judge(
    ctx,
    {
      id: "versions.submit",
      group: "versions",
      name: "POST /extensions/:id/versions with the smallest bundle answers 202, status pending",
    },
    {
      status: 202,
      describe: "{version: {id, version, status: pending, submittedAt}}",
      body: (b) => {
        // `warnings` is the emulator's documented addition, sent only when there are some.
        const out = fieldProblems("version", isObject(b) ? b.version : undefined, VERSION_SUBMITTED);
        if (version && version.status !== "pending")
          out.push(`status should be pending, got ${JSON.stringify(version.status)}`);
        if (version && version.version !== VERSION_LABEL) out.push("version is not the label sent");
        return out;
      },
    },
  );
  choice(
    ctx,
    { id: "choice.version-id-format", group: "versions", name: "version ids are prefixed" },
    "ver_ + 26 characters",
    version
      ? typeof version.id === "string" && /^ver_[0-9A-Za-z]{26}$/.test(version.id)
        ? "ver_ + 26 characters"
        : JSON.stringify(version.id)
      : null,
  );
  await attempt(ctx, () => api.GET(VERSIONS, path));
  judge(
    ctx,
    {
      id: "versions.list",
      group: "versions",
      name: "the versions list shows the submitted version with the spec's fields",
    },
    {
      status: 200,
      describe: "{versions: [{id, version, status, bundleSizeBytes, submittedAt, changelog}]}",
      body: (b) => {
        const out = versionsRule(b);
        const listed =
          isObject(b) && Array.isArray(b.versions)
            ? b.versions.find((v) => isObject(v) && v.id === ctx.versionId)
            : undefined;
        if (ctx.versionId && !listed) out.push("the submitted version is not listed");
        return out;
      },
    },
  );
  const listed = lastJson(ctx);
  const row =
    isObject(listed) && Array.isArray(listed.versions)
      ? listed.versions.find((v) => isObject(v) && v.id === ctx.versionId)
      : undefined;
  choice(
    ctx,
    { id: "choice.bundle-size", group: "versions", name: "bundleSizeBytes counts" },
    "the uploaded archive's bytes",
    isObject(row)
      ? row.bundleSizeBytes === ctx.bundleBytes
        ? "the uploaded archive's bytes"
        : `${String(row.bundleSizeBytes)} for an archive of ${ctx.bundleBytes} bytes`
      : null,
  );
  await attempt(ctx, () => api.GET("/developer/v1/extensions/{id}", path));
  const ext = lastJson(ctx);
  choice(
    ctx,
    { id: "choice.status-after-submit", group: "versions", name: "an extension's status once a version is submitted" },
    "in_review",
    isObject(ext) ? String(ext.status) : null,
  );

  const boundary = "conformance-boundary";
  await attempt(ctx, () =>
    ctx.transport.raw({
      method: "POST",
      path: `/developer/v1/extensions/${id}/versions`,
      headers: {
        authorization: `Bearer ${ctx.target.apiKey}`,
        "content-type": `multipart/form-data; boundary=${boundary}`,
      },
      body: `--${boundary}\r\nContent-Disposition: form-data; name="version"\r\n\r\n0.0.2-conformance\r\n--${boundary}--\r\n`,
    }),
  );
  judge(
    ctx,
    {
      id: "versions.submit-invalid",
      group: "errors",
      name: "a version submitted without its bundle is a 422 validation_error",
    },
    { status: 422, describe: "validation_error envelope", error: { code: "validation_error" } },
  );
}

export async function installAndLimitChecks(ctx: Context, id: string): Promise<void> {
  const api = ctx.api;
  const path = { params: { path: { id } } };
  await attempt(ctx, () => api.GET("/developer/v1/extensions/{id}/installs", path));
  judge(
    ctx,
    { id: "installs.get", group: "installs", name: "GET /extensions/:id/installs answers {total, active, byVersion}" },
    {
      status: 200,
      describe: "{total, active, byVersion}",
      body: (b) => {
        const out = fieldProblems("body", b, INSTALLS);
        if (isObject(b) && isObject(b.byVersion) && !Object.values(b.byVersion).every(Number.isInteger))
          out.push("byVersion should map to integers");
        return out;
      },
    },
  );
  const stats = lastJson(ctx);
  choice(
    ctx,
    { id: "choice.installs-empty", group: "installs", name: "install statistics of a new extension" },
    '{"active":0,"byVersion":{},"total":0}',
    isObject(stats)
      ? JSON.stringify(Object.fromEntries(Object.entries(stats).sort(([a], [b]) => a.localeCompare(b))))
      : null,
  );

  await attempt(ctx, () => api.GET("/v1/developer/extensions/{id}/limits", path));
  judge(
    ctx,
    {
      id: "limits.get",
      group: "limits",
      name: "GET /v1/developer/extensions/:id/limits answers 200 with a JSON object",
    },
    {
      status: 200,
      describe: "a JSON object (its body is not shown in the spec)",
      body: (b) => (isObject(b) ? [] : [`the body should be a JSON object, got ${topLevel(b)}`]),
    },
  );
  const limits = lastJson(ctx);
  const limitsBody = ctx.transport.last().response?.body;
  choice(
    ctx,
    { id: "choice.limits-body", group: "limits", name: "the limits endpoint's body" },
    "{extensionId, limits, sounds, usage}",
    isObject(limits) ? `{${Object.keys(limits).sort().join(", ")}}` : null,
  );
  await attempt(ctx, () => api.GET("/developer/v1/extensions/{id}/limits", path));
  const alias = ctx.transport.last().response;
  choice(
    ctx,
    { id: "choice.limits-alias", group: "limits", name: "the limits endpoint under /developer/v1 too" },
    "200, the same body",
    alias
      ? alias.status === 200 && alias.body === limitsBody
        ? "200, the same body"
        : `${alias.status}${alias.status === 200 ? ", another body" : ""}`
      : null,
  );

  for (const [check, url] of [
    ["versions.list-missing", "/developer/v1/extensions/{id}/versions"],
    ["installs.get-missing", "/developer/v1/extensions/{id}/installs"],
    ["limits.get-missing", "/v1/developer/extensions/{id}/limits"],
    ["secrets.list-missing", "/developer/v1/extensions/{id}/secrets"],
  ] as const) {
    await attempt(ctx, () => api.GET(url, { params: { path: { id: MISSING_ID } } }));
    judge(
      ctx,
      {
        id: check,
        group: "errors",
        name: `GET ${url.replace("{id}", ":id")} of an unknown extension is a 404 extension_not_found`,
      },
      NOT_FOUND,
    );
  }
}
