/**
 * Request arbitraries for one registered route: path parameters, query string, headers and body, built
 * from the route's own schemas (so a route added later is fuzzed without touching this file) plus hostile
 * values the schemas never describe.
 */
import fc from "fast-check";
import { fromSchema, hostileScalar } from "./schema-arbitrary";

type Schema = Record<string, any>;

export interface FuzzRoute {
  method: string;
  /** As registered: `/developer/v1/extensions/:id`. */
  path: string;
  params?: Schema;
  query?: Schema;
  body?: Schema;
  /** `parse: "none"` routes read the body themselves (the multipart upload). */
  multipart: boolean;
}

export interface FuzzRequest {
  method: string;
  /** Path and query string, ready for fetch (already percent-encoded where it should be). */
  url: string;
  headers: Record<string, string>;
  body?: Uint8Array;
  /** How the body was made, for the failure report. */
  bodyKind: string;
}

export interface Pools {
  /** Real values for a path parameter name (`id`, `accountId`, …): requests that reach the services. */
  params: Record<string, string[]>;
  keys: { valid: string; readOnly: string; otherAccount: string; admin: string };
  /** A valid bundle (.tar.gz bytes) for uploads. */
  bundle: Uint8Array;
}

const utf8 = (s: string) => new TextEncoder().encode(s);
/** encodeURIComponent throws on a lone surrogate; the encoded one is among the hostile segments instead. */
const enc = (s: string) => encodeURIComponent(s.toWellFormed());

/** Path segments no id looks like: encodings that do not decode, traversal, separators, sizes. */
const hostileSegment = fc.constantFrom(
  "%ff",
  "%E0%A4%A",
  "%",
  "%25",
  "%00",
  "..",
  "%2e%2e",
  "a%2Fb",
  "__proto__",
  "constructor",
  "x".repeat(10_240),
  encodeURIComponent("é".repeat(300)),
  encodeURIComponent("\u202e😀"),
  "%ED%A0%80", // an encoded lone surrogate
  `ext_${"0".repeat(26)}`,
  "ver_%20",
);

function segmentArb(name: string, schema: Schema | undefined, pools: Pools): fc.Arbitrary<string> {
  const real = pools.params[name] ?? [];
  return fc.oneof(
    { weight: real.length > 0 ? 6 : 0, arbitrary: real.length > 0 ? fc.constantFrom(...real) : fc.constant("x") },
    {
      weight: 2,
      arbitrary: fromSchema(schema, 1, 0).map((v) => enc(typeof v === "string" && v.length > 0 ? v : String(v) || "x")),
    },
    { weight: 2, arbitrary: hostileSegment },
  );
}

function queryArb(schema: Schema | undefined): fc.Arbitrary<string> {
  const fromRoute = schema
    ? fromSchema(schema, 1, 2).map((q) => {
        if (!q || typeof q !== "object" || Array.isArray(q)) return "";
        return Object.entries(q as Record<string, unknown>)
          .map(([k, v]) => `${enc(k)}=${enc(typeof v === "string" ? v : (JSON.stringify(v) ?? ""))}`)
          .join("&");
      })
    : fc.constant("");
  const hostile = fc.constantFrom(
    "limit=1&limit=2",
    "__proto__[polluted]=1",
    "limit=%ff",
    "a[b][c]=1",
    "include=archived&include=archived",
    "limit=1e309",
    "limit=-0",
    `limit=${"9".repeat(400)}`,
    `x=${"y".repeat(10_240)}`,
    "%",
    "&&&",
    "status=pending%00",
  );
  return fc
    .oneof(
      { weight: 3, arbitrary: fc.constant("") },
      { weight: 5, arbitrary: fromRoute },
      { weight: 2, arbitrary: hostile },
    )
    .map((q) => (q ? `?${q}` : ""));
}

/** JSON texts no JSON.stringify would write: numbers past double range, depth, bad bytes, duplicates. */
function rawJsonBodies(valid: fc.Arbitrary<string>): fc.Arbitrary<{ bytes: Uint8Array; kind: string }> {
  return fc.oneof(
    valid.map((text) => ({ bytes: utf8(text.replace(/-?\d+(\.\d+)?(e[+-]?\d+)?/i, "1e309")), kind: "number→1e309" })),
    valid.map((text) => ({
      bytes: utf8(text.replace(/-?\d+(\.\d+)?(e[+-]?\d+)?/i, "-1e-400")),
      kind: "number→-1e-400",
    })),
    valid.map((text) => ({ bytes: utf8(text.replace(/"[^"]*"/, '"\\ud800"')), kind: "lone surrogate escape" })),
    valid.map((text) => ({ bytes: utf8(`\ufeff${text}`), kind: "BOM" })),
    valid.map((text) => ({
      bytes: utf8(text.replace(/^\{/, '{"__proto__":{"polluted":true},')),
      kind: "__proto__ key",
    })),
    valid.map((text) => ({ bytes: utf8(text.slice(0, Math.max(0, text.length - 1))), kind: "truncated" })),
    valid.map((text) => {
      const bytes = utf8(text);
      const at = Math.min(2, bytes.length);
      const out = new Uint8Array(bytes.length + 2);
      out.set(bytes.subarray(0, at), 0);
      out.set([0xff, 0xfe], at);
      out.set(bytes.subarray(at), at + 2);
      return { bytes: out, kind: "invalid UTF-8" };
    }),
    fc.constantFrom(
      { bytes: utf8("[".repeat(5_000) + "]".repeat(5_000)), kind: "deep array" },
      { bytes: utf8(`${'{"a":'.repeat(3_000)}1${"}".repeat(3_000)}`), kind: "deep object" },
      { bytes: utf8("[".repeat(20_000) + "]".repeat(20_000)), kind: "40 KB of nested brackets" },
      { bytes: utf8(`{"a":"${"[{".repeat(5_000)}"}`), kind: "brackets inside a string" },
      { bytes: utf8(JSON.stringify(Array.from({ length: 20_000 }, () => 1))), kind: "wide array" },
      { bytes: utf8(""), kind: "empty" },
      { bytes: utf8("null"), kind: "null" },
      { bytes: utf8('"text"'), kind: "string" },
      { bytes: utf8("NaN"), kind: "NaN" },
      { bytes: utf8('{"a":1,"a":2}'), kind: "duplicate keys" },
      { bytes: new Uint8Array([0x7b, 0x00, 0x7d]), kind: "NUL" },
      { bytes: new Uint8Array([0xc3, 0x28, 0xa0, 0xa1, 0xe2, 0x28, 0xa1]), kind: "invalid UTF-8 only" },
    ),
  );
}

function multipartBody(pools: Pools): fc.Arbitrary<{ bytes: Uint8Array; contentType: string; kind: string }> {
  const boundary = "fuzzBoundary7MA4YWxk";
  const part = (name: string, content: Uint8Array | string, filename?: string) => [
    utf8(
      `--${boundary}\r\nContent-Disposition: form-data; name="${name}"${filename !== undefined ? `; filename="${filename}"` : ""}\r\n\r\n`,
    ),
    typeof content === "string" ? utf8(content) : content,
    utf8("\r\n"),
  ];
  const concat = (chunks: Uint8Array[]) => {
    const out = new Uint8Array(chunks.reduce((n, c) => n + c.length, 0));
    let at = 0;
    for (const c of chunks) out.set(c, at), (at += c.length);
    return out;
  };
  const label = fc.oneof(
    fc.constantFrom("1.0.0", "2.0.0-beta.1", "01.0.0", "1.0", "", "x".repeat(300), "\u0000", "1.0.0+build"),
    fc.stringMatching(/^\d{1,3}\.\d{1,3}\.\d{1,3}$/),
  );
  const bundle = fc.oneof(
    { weight: 3, arbitrary: fc.constant(pools.bundle) },
    { weight: 1, arbitrary: fc.uint8Array({ maxLength: 2_048 }) },
    {
      weight: 1,
      arbitrary: fc.integer({ min: 1, max: pools.bundle.length - 1 }).map((n) => pools.bundle.subarray(0, n)),
    },
  );
  const form = fc.record({
    version: fc.option(label, { nil: undefined }),
    changelog: fc.option(fc.oneof(fc.string(), fc.constant("c".repeat(10_001))), { nil: undefined }),
    bundle: fc.option(bundle, { nil: undefined }),
    extra: fc.option(fc.constantFrom("__proto__", "bundle", "version", "unknown"), { nil: undefined }),
  });
  return fc.oneof(
    {
      weight: 6,
      arbitrary: form.map((f) => {
        const chunks: Uint8Array[] = [];
        if (f.version !== undefined) chunks.push(...part("version", f.version));
        if (f.changelog !== undefined) chunks.push(...part("changelog", f.changelog));
        if (f.bundle !== undefined) chunks.push(...part("bundle", f.bundle, "bundle.tar.gz"));
        if (f.extra !== undefined) chunks.push(...part(f.extra, "extra value"));
        chunks.push(utf8(`--${boundary}--\r\n`));
        return {
          bytes: concat(chunks),
          contentType: `multipart/form-data; boundary=${boundary}`,
          kind: `form ${JSON.stringify({ ...f, bundle: f.bundle?.length })}`,
        };
      }),
    },
    {
      weight: 1,
      arbitrary: fc
        .uint8Array({ maxLength: 4_096 })
        .map((bytes) => ({ bytes, contentType: `multipart/form-data; boundary=${boundary}`, kind: "random bytes" })),
    },
    {
      weight: 1,
      arbitrary: fc
        .constantFrom(
          "multipart/form-data",
          "multipart/form-data; boundary=",
          `multipart/form-data; boundary=${"b".repeat(200)}`,
          "application/json",
        )
        .map((contentType) => ({
          bytes: utf8(`--${boundary}--\r\n`),
          contentType,
          kind: `content-type ${contentType}`,
        })),
    },
  );
}

const contentTypes = fc.constantFrom(
  "application/json",
  "application/json; charset=utf-8",
  "application/json; charset=utf-16",
  "text/plain",
  "application/x-www-form-urlencoded",
  "APPLICATION/JSON",
  "application/json;;;",
  "",
);

export function requestArb(route: FuzzRoute, pools: Pools): fc.Arbitrary<FuzzRequest> {
  const developer = !route.path.startsWith("/_emulator");
  // A parameter's real values: by the segment before it when the pools know it (`accounts/:id` is an
  // account id, `extensions/:id` an extension id), else by its name.
  const params = [...route.path.matchAll(/([^/]*)\/:([A-Za-z]+)/g)].map((m) => ({
    name: m[2]!,
    poolKey: pools.params[`${m[1]}/:${m[2]}`] ? `${m[1]}/:${m[2]}` : m[2]!,
  }));
  const segments = fc.tuple(...params.map((p) => segmentArb(p.poolKey, route.params?.properties?.[p.name], pools)));
  const auth = developer
    ? fc.oneof(
        { weight: 12, arbitrary: fc.constant(`Bearer ${pools.keys.valid}`) },
        {
          weight: 1,
          arbitrary: fc.constantFrom(
            `Bearer ${pools.keys.readOnly}`,
            `Bearer ${pools.keys.otherAccount}`,
            `Bearer ${pools.keys.admin}`,
            "Bearer",
            "Basic abc",
            `bearer   ${pools.keys.valid}`,
            `Bearer ${"k".repeat(10_240)}`,
            "",
          ),
        },
      )
    : fc.oneof(
        { weight: 12, arbitrary: fc.constant(`Bearer ${pools.keys.admin}`) },
        { weight: 1, arbitrary: fc.constantFrom("", `Bearer ${pools.keys.valid}`, "Bearer wrong", "Basic abc") },
      );
  const extraHeaders = fc.oneof(
    { weight: 6, arbitrary: fc.constant({}) },
    {
      weight: 1,
      arbitrary: fc.constantFrom<Record<string, string>>(
        { "x-http-method-override": "DELETE" },
        { accept: "text/html" },
        { origin: "http://evil.example" },
        { "sec-fetch-site": "cross-site" },
        { "x-forwarded-for": "1.2.3.4" },
        { "content-encoding": "gzip" },
        { "transfer-encoding": "chunked" },
        { expect: "100-continue" },
      ),
    },
  );
  let body: fc.Arbitrary<{ bytes?: Uint8Array; contentType?: string; kind: string }>;
  if (route.multipart) body = multipartBody(pools);
  else if (route.body) {
    const valid = fromSchema(route.body, 4, 1).map((v) => JSON.stringify(v) ?? "null");
    body = fc.oneof(
      {
        weight: 7,
        arbitrary: fc.tuple(valid, contentTypes).map(([text, contentType]) => ({
          bytes: utf8(text),
          contentType: contentType === "" ? undefined : contentType,
          kind: `json ${text.slice(0, 200)}`,
        })),
      },
      { weight: 3, arbitrary: rawJsonBodies(valid).map((r) => ({ ...r, contentType: "application/json" })) },
    );
  } else {
    // An operation without a body ignores whatever is sent (docs/behaviour.md): JSON or not, well-formed or not.
    body = fc.oneof(
      { weight: 8, arbitrary: fc.constant({ kind: "none" }) },
      {
        weight: 1,
        arbitrary: hostileScalar.map((v) => ({
          bytes: utf8(JSON.stringify(v) ?? "null"),
          contentType: "application/json",
          kind: "unexpected body",
        })),
      },
      {
        weight: 1,
        arbitrary: fc.constantFrom(
          { bytes: utf8("{"), contentType: "application/json", kind: "unexpected malformed JSON" },
          { bytes: utf8("[".repeat(20_000)), contentType: "application/json", kind: "unexpected deep JSON" },
          { bytes: utf8("a=1"), contentType: "application/x-www-form-urlencoded", kind: "unexpected form" },
          { bytes: new Uint8Array([0xff, 0xfe]), contentType: "text/plain", kind: "unexpected bytes" },
        ),
      },
    );
  }
  return fc
    .record({ segments, query: queryArb(route.query), auth, extra: extraHeaders, body })
    .map(({ segments, query, auth, extra, body }) => {
      let i = 0;
      const path = route.path.replace(/:([A-Za-z]+)/g, () => segments[i++] ?? "x");
      const headers: Record<string, string> = { ...extra };
      if (auth) headers.authorization = auth;
      if (body.contentType) headers["content-type"] = body.contentType;
      // A body on GET/HEAD is something fetch refuses to send: those carry none.
      const canHaveBody = route.method !== "GET" && route.method !== "HEAD";
      return {
        method: route.method,
        url: path + query,
        headers,
        ...(canHaveBody && body.bytes ? { body: body.bytes } : {}),
        bodyKind: body.kind,
      };
    });
}
