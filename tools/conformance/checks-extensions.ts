/** Checks of authentication and of the extension endpoints (spec §2, §4, §5, §7), in the order they run. */

import { fieldProblems, isObject, topLevel } from "./shape";
import { EXTENSION_CREATED, EXTENSION_FULL, EXTENSION_LIST } from "./spec";
import { attempt, type Context, choice, json, judge, lastJson, requireRoom, skip, statusAndCode } from "./step";

/** An id no account has: the 404 checks never touch a real extension. */
export const MISSING_ID = "ext_00000000000000000000000000";
const LIST = "/developer/v1/extensions";
const ONE = "/developer/v1/extensions/{id}";

export const listRule = (body: unknown) =>
  isObject(body) && Array.isArray(body.extensions)
    ? [
        ...Object.keys(body)
          .filter((k) => k !== "extensions")
          .map((k) => `field ${k} is not in the spec's field set`),
        ...body.extensions.flatMap((e, i) => fieldProblems(`extensions[${i}]`, e, EXTENSION_LIST)),
      ]
    : [`the body should be {extensions: [...]}, got ${topLevel(body)}`];

export async function authChecks(ctx: Context): Promise<void> {
  await attempt(ctx, () => ctx.transport.raw({ method: "GET", path: LIST }));
  judge(
    ctx,
    { id: "auth.missing-key", group: "auth", name: "no Authorization header is a 401 unauthorized" },
    { status: 401, describe: "unauthorized envelope", error: { code: "unauthorized" } },
  );
  const invalid = `ext_conformance_invalid_${ctx.runId}`;
  ctx.redactor.add(invalid, "<invalid-key>");
  await attempt(ctx, () => ctx.transport.client(invalid).GET(LIST));
  judge(
    ctx,
    { id: "auth.invalid-key", group: "auth", name: "an unknown key is a 401 unauthorized" },
    { status: 401, describe: "unauthorized envelope", error: { code: "unauthorized" } },
  );
  const wwwAuth = ctx.transport.last().response?.headers["www-authenticate"];
  choice(
    ctx,
    { id: "choice.www-authenticate", group: "auth", name: "a 401 carries WWW-Authenticate" },
    'WWW-Authenticate: Bearer realm="developer-api"',
    ctx.transport.last().response ? `WWW-Authenticate: ${wwwAuth ?? "(none)"}` : null,
    { status: 401, code: "unauthorized" },
  );
  await attempt(ctx, () =>
    ctx.transport.raw({ method: "GET", path: LIST, headers: { authorization: `Basic ${btoa("conformance:x")}` } }),
  );
  judge(
    ctx,
    { id: "auth.malformed", group: "auth", name: "a non-Bearer Authorization header is a 401 unauthorized" },
    { status: 401, describe: "unauthorized envelope", error: { code: "unauthorized" } },
  );
}

export async function extensionChecks(ctx: Context): Promise<void> {
  const api = ctx.api;
  await attempt(ctx, () => api.GET(LIST));
  if (
    judge(
      ctx,
      {
        id: "extensions.list",
        group: "extensions",
        name: "GET /extensions lists the account's extensions with the spec's fields",
      },
      { status: 200, describe: "{extensions: [list objects]}", body: listRule },
    )
  ) {
    const body = lastJson(ctx);
    if (isObject(body) && Array.isArray(body.extensions))
      ctx.before = body.extensions.map((e) => (isObject(e) ? String(e.id) : "")).sort();
  }
  const rateHeaders = Object.keys(ctx.transport.last().response?.headers ?? {})
    .filter((h) => h.startsWith("x-ratelimit-"))
    .sort();
  choice(
    ctx,
    { id: "choice.rate-headers", group: "headers", name: "authenticated answers carry rate-limit headers" },
    "x-ratelimit-limit, x-ratelimit-remaining, x-ratelimit-reset",
    ctx.transport.last().response ? rateHeaders.join(", ") || "(none)" : null,
    { status: 200 },
  );
  // The first answer that says how much room the target's GET window has: a run that cannot fit stops here,
  // before it writes anything.
  requireRoom(ctx, "GET", LIST, "extensions.create-invalid");
  await invalidCreateCheck(ctx);

  const created = {
    name: ctx.scratchName,
    short_description: "Scratch extension of an ext conformance run; safe to delete.",
    description: "Created by `ext conformance`, which deletes it when the run ends.",
    pricing: { type: "free" as const },
  };
  await attempt(ctx, () => api.POST(LIST, { body: created }));
  const createStatus = ctx.transport.last().response?.status;
  // A refusal (4xx) created nothing; a lost answer, a 5xx or a success without an id may have. A create the
  // target's window had no room for was never sent.
  ctx.createAttempted =
    !ctx.stopped?.unsent && (createStatus === undefined || createStatus >= 500 || createStatus < 300);
  const createdBody = lastJson(ctx);
  const ext = isObject(createdBody) && isObject(createdBody.extension) ? createdBody.extension : null;
  if (ext && typeof ext.id === "string" && (ctx.transport.last().response?.status ?? 0) < 300) {
    ctx.scratchId = ext.id;
    ctx.created.push(ext.id);
  }
  judge(
    ctx,
    {
      id: "extensions.create",
      group: "extensions",
      name: "POST /extensions answers 201 {extension:{id,slug,name,status,createdAt}}, status draft",
    },
    {
      status: 201,
      describe: "{extension: {id, slug, name, status: draft, createdAt}}",
      body: (b) => {
        const e = isObject(b) ? b.extension : undefined;
        const out = fieldProblems("extension", e, EXTENSION_CREATED);
        if (isObject(b) && Object.keys(b).some((k) => k !== "extension"))
          out.push("the body has fields beside extension");
        if (isObject(e) && e.status !== "draft") out.push(`status should be draft, got ${JSON.stringify(e.status)}`);
        if (isObject(e) && e.name !== ctx.scratchName) out.push("name is not the name sent");
        return out;
      },
    },
  );
  choice(
    ctx,
    { id: "choice.id-format", group: "extensions", name: "extension ids are prefixed" },
    "ext_ + 26 characters",
    ext
      ? typeof ext.id === "string" && /^ext_[0-9A-Za-z]{26}$/.test(ext.id)
        ? "ext_ + 26 characters"
        : `${JSON.stringify(ext.id)}`
      : null,
  );
  choice(
    ctx,
    { id: "choice.timestamp-millis", group: "extensions", name: "timestamps carry milliseconds" },
    "YYYY-MM-DDTHH:MM:SS.sssZ",
    ext
      ? typeof ext.createdAt === "string" && /\.\d{3}Z$/.test(ext.createdAt)
        ? "YYYY-MM-DDTHH:MM:SS.sssZ"
        : String(ext.createdAt)
      : null,
  );
}

/** Checks that need the scratch extension (`ctx.scratchId`). */
export async function scratchExtensionChecks(ctx: Context, id: string): Promise<void> {
  const api = ctx.api;
  const path = { params: { path: { id } } };
  await attempt(ctx, () => api.GET(ONE, path));
  judge(
    ctx,
    { id: "extensions.get", group: "extensions", name: "GET /extensions/:id answers the full object" },
    {
      status: 200,
      describe: "the full extension object",
      body: (b) => {
        const out = fieldProblems("body", b, EXTENSION_FULL);
        if (isObject(b) && b.id !== id) out.push("id is not the id asked for");
        if (isObject(b) && isObject(b.pricing) && typeof b.pricing.type !== "string")
          out.push("pricing.type should be a string");
        return out;
      },
    },
  );
  const got = lastJson(ctx);
  choice(
    ctx,
    { id: "choice.new-extension", group: "extensions", name: "a new extension's visibility and current version" },
    'visibility "private", currentVersionId null',
    isObject(got)
      ? `visibility ${JSON.stringify(got.visibility)}, currentVersionId ${JSON.stringify(got.currentVersionId)}`
      : null,
  );
  await attempt(ctx, () => api.GET(LIST));
  judge(
    ctx,
    {
      id: "extensions.list-created",
      group: "extensions",
      name: "the list shows the new extension with the list fields",
    },
    {
      status: 200,
      describe: "{extensions: [..., the scratch extension]}",
      body: (b) => {
        const out = listRule(b);
        if (isObject(b) && Array.isArray(b.extensions) && !b.extensions.some((e) => isObject(e) && e.id === id))
          out.push("the new extension is not in the list");
        return out;
      },
    },
  );
  const changed = "Changed by ext conformance.";
  await attempt(ctx, () => api.PATCH(ONE, { ...path, body: { short_description: changed } }));
  judge(
    ctx,
    {
      id: "extensions.patch",
      group: "extensions",
      name: "PATCH /extensions/:id changes only the field sent and answers the full object",
    },
    {
      status: 200,
      describe: "the updated full object",
      body: (b) => {
        const out = fieldProblems("body", b, EXTENSION_FULL);
        if (isObject(b) && b.short_description !== changed) out.push("short_description did not change");
        if (isObject(b) && b.name !== ctx.scratchName) out.push("name changed though it was not sent");
        return out;
      },
    },
  );
  await attempt(ctx, () =>
    ctx.transport.raw({
      method: "PATCH",
      path: `/developer/v1/extensions/${id}`,
      headers: json(ctx),
      body: JSON.stringify({ name: 42 }),
    }),
  );
  judge(
    ctx,
    {
      id: "extensions.patch-invalid",
      group: "errors",
      name: "PATCH with a name that is not a string is a 422 validation_error",
    },
    { status: 422, describe: "validation_error envelope", error: { code: "validation_error" } },
  );
  await attempt(ctx, () =>
    ctx.transport.raw({
      method: "PATCH",
      path: `/developer/v1/extensions/${id}`,
      headers: json(ctx),
      body: JSON.stringify({ colour: "blue" }),
    }),
  );
  choice(
    ctx,
    { id: "choice.unknown-field", group: "errors", name: "an unknown JSON field" },
    "422 validation_error",
    statusAndCode(ctx),
  );
  await attempt(ctx, () =>
    ctx.transport.raw({
      method: "PATCH",
      path: `/developer/v1/extensions/${id}`,
      headers: { ...json(ctx), "content-type": "text/plain" },
      body: "name=x",
    }),
  );
  choice(
    ctx,
    { id: "choice.content-type", group: "errors", name: "a JSON endpoint sent text/plain" },
    "415 unsupported_media_type",
    statusAndCode(ctx),
  );
}

/** A create the spec refuses; a target that accepts it has its extension recorded for cleanup. */
async function refusedCreate(ctx: Context, body: unknown): Promise<void> {
  await attempt(ctx, () =>
    ctx.transport.raw({ method: "POST", path: LIST, headers: json(ctx), body: JSON.stringify(body) }),
  );
  if (ctx.stopped) return;
  const answer = lastJson(ctx);
  const status = ctx.transport.last().response?.status ?? 0;
  if (
    status >= 200 &&
    status < 300 &&
    isObject(answer) &&
    isObject(answer.extension) &&
    typeof answer.extension.id === "string"
  )
    ctx.created.push(answer.extension.id);
}

/**
 * The run's first POST /extensions: one the spec refuses (a name that is not a string), so it creates nothing,
 * and its answer tells how much room the target's create window has (X-RateLimit-Remaining) before the
 * scratch create is sent. A target at its limit answers 429 here and the run stops, no extension created.
 */
export async function invalidCreateCheck(ctx: Context): Promise<void> {
  await refusedCreate(ctx, { name: 42 });
  judge(
    ctx,
    {
      id: "extensions.create-invalid",
      group: "errors",
      name: "POST /extensions with a name that is not a string is a 422 validation_error",
    },
    { status: 422, describe: "validation_error envelope", error: { code: "validation_error" } },
  );
}

/** A create without a name ("not shown"): skipped, not sent, when the target's create window has no room left. */
export async function requiredFieldsCheck(ctx: Context): Promise<void> {
  const meta = { id: "choice.required-fields", group: "extensions", name: "POST /extensions without a name" };
  if (!ctx.options.dryRun && ctx.budget.room("create_extension") === 0) {
    const wait = ctx.budget.waitSeconds("create_extension");
    return skip(
      ctx,
      { ...meta, kind: "choice" },
      `not sent: the target's POST /extensions window has no room left (X-RateLimit-Remaining 0)${wait === null ? "" : `; it reopens in ${wait} s`}`,
    );
  }
  await refusedCreate(ctx, {});
  choice(ctx, meta, "422 validation_error", statusAndCode(ctx));
}

export async function missingExtensionChecks(ctx: Context): Promise<void> {
  const path = { params: { path: { id: MISSING_ID } } };
  const notFound = { status: 404, describe: "extension_not_found envelope", error: { code: "extension_not_found" } };
  await attempt(ctx, () => ctx.api.GET(ONE, path));
  judge(
    ctx,
    { id: "extensions.get-missing", group: "errors", name: "GET of an unknown extension is a 404 extension_not_found" },
    notFound,
  );
  await attempt(ctx, () => ctx.api.PATCH(ONE, { ...path, body: { short_description: "x" } }));
  judge(
    ctx,
    {
      id: "extensions.patch-missing",
      group: "errors",
      name: "PATCH of an unknown extension is a 404 extension_not_found",
    },
    notFound,
  );
  await attempt(ctx, () => ctx.api.DELETE(ONE, path));
  judge(
    ctx,
    {
      id: "extensions.delete-missing",
      group: "errors",
      name: "DELETE of an unknown extension is a 404 extension_not_found",
    },
    notFound,
  );
  await attempt(ctx, () =>
    ctx.transport.raw({ method: "GET", path: "/developer/v1/conformance-unknown-route", headers: json(ctx) }),
  );
  choice(
    ctx,
    { id: "choice.unknown-route", group: "errors", name: "an unknown path under the base" },
    "404 not_found",
    statusAndCode(ctx),
  );
  await attempt(ctx, () => ctx.transport.raw({ method: "PUT", path: LIST, headers: json(ctx), body: "{}" }));
  choice(
    ctx,
    { id: "choice.wrong-method", group: "errors", name: "a known path with a method it does not take" },
    "405 method_not_allowed",
    statusAndCode(ctx),
  );
}
