/** Checks of secrets (write-only values), of the narrower key (403) and, when asked, of the rate limits. */
import { isObject, topLevel } from "./shape";
import { RATE_LIMITS } from "./spec";
import { attempt, type Context, choice, json, judge, record, SECRET_LABEL, skip, statusAndCode } from "./step";

const ONE = "/developer/v1/extensions/{id}/secrets/{key}";
const ALL = "/developer/v1/extensions/{id}/secrets";
const EMPTY_204 = { status: 204, describe: "no body", empty: true } as const;

function randomValue(): string {
  const bytes = new Uint8Array(18);
  crypto.getRandomValues(bytes);
  return `conformance-${Buffer.from(bytes).toString("base64url")}`;
}

const keysRule = (name: string, present: boolean) => (b: unknown) => {
  if (!isObject(b) || !Array.isArray(b.keys) || !b.keys.every((k) => typeof k === "string"))
    return [`the body should be {keys: [string]}, got ${topLevel(b)}`];
  const out = Object.keys(b)
    .filter((k) => k !== "keys")
    .map((k) => `field ${k} is not in the spec's field set`);
  if (b.keys.includes(name) !== present) out.push(present ? `${name} is not listed` : `${name} is still listed`);
  return out;
};

export async function secretChecks(ctx: Context, id: string): Promise<void> {
  const api = ctx.api;
  const name = ctx.secretName;
  const key = { params: { path: { id, key: name } } };
  const first = randomValue();
  const second = randomValue();
  ctx.redactor.add(first, SECRET_LABEL);
  ctx.redactor.add(second, SECRET_LABEL);
  await attempt(ctx, () => api.PUT(ONE, { ...key, body: { value: first } }));
  judge(
    ctx,
    { id: "secrets.put", group: "secrets", name: "PUT /extensions/:id/secrets/:key answers 204 with no body" },
    EMPTY_204,
  );
  await attempt(ctx, () => api.GET(ALL, { params: { path: { id } } }));
  judge(
    ctx,
    { id: "secrets.list", group: "secrets", name: "GET /extensions/:id/secrets lists names only" },
    {
      status: 200,
      describe: `{keys: [..., "${name}"]}`,
      body: keysRule(name, true),
    },
  );
  await attempt(ctx, () => api.PUT(ONE, { ...key, body: { value: second } }));
  judge(
    ctx,
    { id: "secrets.replace", group: "secrets", name: "PUT of an existing name replaces it: 204 with no body" },
    EMPTY_204,
  );
  await attempt(ctx, () =>
    ctx.transport.raw({
      method: "PUT",
      path: `/developer/v1/extensions/${id}/secrets/${name}`,
      headers: json(ctx),
      body: JSON.stringify({ value: 5 }),
    }),
  );
  judge(
    ctx,
    {
      id: "secrets.put-invalid",
      group: "errors",
      name: "PUT with a value that is not a string is a 422 validation_error",
    },
    {
      status: 422,
      describe: "validation_error envelope",
      error: { code: "validation_error" },
    },
  );
  await attempt(ctx, () =>
    ctx.transport.raw({
      method: "PUT",
      path: `/developer/v1/extensions/${id}/secrets/bad-name!`,
      headers: json(ctx),
      body: JSON.stringify({ value: "x" }),
    }),
  );
  choice(
    ctx,
    { id: "choice.secret-name", group: "secrets", name: "a secret name outside [A-Za-z_][A-Za-z0-9_]*" },
    "422 validation_error",
    statusAndCode(ctx),
  );
  await attempt(ctx, () => api.DELETE(ONE, key));
  judge(
    ctx,
    { id: "secrets.delete", group: "secrets", name: "DELETE /extensions/:id/secrets/:key answers 204 with no body" },
    EMPTY_204,
  );
  await attempt(ctx, () => api.GET(ALL, { params: { path: { id } } }));
  judge(
    ctx,
    { id: "secrets.list-after-delete", group: "secrets", name: "a deleted name is no longer listed" },
    {
      status: 200,
      describe: "{keys: [...]} without the name",
      body: keysRule(name, false),
    },
  );
  await attempt(ctx, () => api.DELETE(ONE, key));
  choice(
    ctx,
    { id: "choice.secret-delete-missing", group: "secrets", name: "DELETE of a name that does not exist" },
    "404 secret_not_found",
    statusAndCode(ctx),
  );
}

export async function forbiddenChecks(ctx: Context, id: string): Promise<void> {
  const metas = [
    { id: "auth.forbidden-patch", group: "auth", name: "the narrower key's PATCH is a 403 forbidden" },
    { id: "auth.forbidden-secret", group: "auth", name: "the narrower key's secret PUT is a 403 forbidden" },
  ];
  const ro = ctx.readOnly;
  if (!ro || !ctx.target.readOnlyKey) {
    for (const m of metas) skip(ctx, m, "no --read-only-key given");
    return;
  }
  const forbidden = { status: 403, describe: "forbidden envelope", error: { code: "forbidden" } };
  await attempt(ctx, () =>
    ro.PATCH("/developer/v1/extensions/{id}", {
      params: { path: { id } },
      body: { short_description: "Not allowed." },
    }),
  );
  judge(ctx, metas[0]!, forbidden);
  const value = randomValue();
  ctx.redactor.add(value, SECRET_LABEL);
  await attempt(ctx, () => ro.PUT(ONE, { params: { path: { id, key: ctx.secretName } }, body: { value } }));
  judge(ctx, metas[1]!, forbidden);
}

/** Exhausts the GET window (120/minute): only with --include-rate-limits, as it locks the account's GETs for up to a minute. */
export async function rateLimitChecks(ctx: Context): Promise<void> {
  const meta = {
    id: "rate-limits.get",
    group: "rate limits",
    name: "GET past 120 a minute is a 429 rate_limited with Retry-After seconds",
  };
  if (!ctx.options.includeRateLimits) return skip(ctx, meta, "runs only with --include-rate-limits");
  // Earlier GETs of this run count too, so at most the limit plus one more are needed.
  for (let i = 0; i <= RATE_LIMITS.get.limit; i++) {
    await attempt(ctx, () => ctx.api.GET("/developer/v1/extensions"));
    const status = ctx.transport.last().response?.status;
    if (status !== 200) break;
  }
  judge(ctx, meta, {
    status: 429,
    describe: "rate_limited envelope, Retry-After: whole seconds ≥ 1",
    error: { code: "rate_limited" },
    headers: (h) =>
      /^[1-9]\d*$/.test(h["retry-after"] ?? "")
        ? []
        : [`Retry-After should be whole seconds ≥ 1, got ${h["retry-after"] ?? "none"}`],
  });
}

/** Every answer of the run, headers included, searched for every secret value the run wrote. */
export function secretLeakCheck(ctx: Context): void {
  const leaked = ctx.transport.sent.find(
    (e) =>
      e.response &&
      (e.response.body.includes(SECRET_LABEL) ||
        Object.values(e.response.headers).some((v) => v.includes(SECRET_LABEL))),
  );
  record(ctx, {
    id: "secrets.never-returned",
    group: "secrets",
    name: "no answer of the run carries a secret value",
    kind: "spec",
    outcome: leaked ? "differed" : "passed",
    expected: "no secret value in any answer",
    got: leaked
      ? `${leaked.request.method} ${leaked.request.path} answered ${leaked.response?.status} with the value`
      : "",
    ...(leaked ? { note: "a secret value came back (shown here as <secret value>)", exchange: leaked } : {}),
  });
}
