/**
 * fast-check arbitraries from the JSON Schemas the routes validate with (Elysia's `t`, i.e. TypeBox), so
 * the fuzzer follows the schemas as they change: mostly values that pass (they reach the services), mixed
 * with hostile values and near-misses (they exercise validation and the error handler).
 */
import fc from "fast-check";

type Schema = Record<string, any>;

/** Values no schema expects: the classics of number parsing, prototype pollution, encodings and sizes. */
const HOSTILE_VALUES: unknown[] = [
  1e308,
  -1e308,
  Number.MAX_SAFE_INTEGER + 2,
  -Number.MAX_SAFE_INTEGER - 2,
  5e-324,
  -0,
  0.5,
  "NaN",
  "Infinity",
  "-Infinity",
  "1e309",
  "0x10",
  " 1 ",
  "1_000",
  "१२",
  "",
  " ",
  "__proto__",
  "constructor",
  "prototype",
  "../../etc/passwd",
  "%00",
  "\u0000",
  "\ud800",
  "\udfff\ud800",
  "\u202e",
  "😀".repeat(50),
  "<script>alert(1)</script>",
  "' OR 1=1 --",
  "x".repeat(10_240),
  "é".repeat(40_000),
  true,
  null,
  [],
  {},
  { __proto__: null, polluted: true },
  JSON.parse('{"__proto__":{"polluted":true}}'),
  JSON.parse('{"constructor":{"prototype":{"polluted":true}}}'),
];
export const hostileScalar: fc.Arbitrary<unknown> = fc.constantFrom(...HOSTILE_VALUES);

/** Whether `value` is one of the shared hostile values (which other requests use as ids and names too). */
export function isHostileConstant(value: unknown): boolean {
  return HOSTILE_VALUES.includes(value);
}

/** A string that matches `pattern` as often as fast-check can make one. */
function patterned(pattern: string, minLength: number, maxLength: number): fc.Arbitrary<string> {
  let re: RegExp;
  try {
    re = new RegExp(pattern);
  } catch {
    return fc.string({ minLength, maxLength });
  }
  return fc.stringMatching(re).map((s) => (s.length > maxLength ? s.slice(0, maxLength) : s));
}

function stringArb(s: Schema): fc.Arbitrary<string> {
  const minLength = s.minLength ?? 0;
  const maxLength = Math.min(s.maxLength ?? 200, 2_000);
  if (s.format === "date-time")
    return fc
      .date({ min: new Date(0), max: new Date(Date.UTC(9999, 11, 31)), noInvalidDate: true })
      .map((d) => d.toISOString());
  if (s.format === "integer" || s.format === "numeric") return fc.integer({ min: -10, max: 100_000 }).map(String);
  if (s.format === "email") return fc.emailAddress();
  if (s.pattern) return patterned(s.pattern, minLength, maxLength);
  return fc.oneof(
    { weight: 4, arbitrary: fc.string({ minLength, maxLength: Math.min(maxLength, 40) }) },
    { weight: 1, arbitrary: fc.string({ unit: "grapheme", minLength, maxLength: Math.min(maxLength, 40) }) },
    { weight: 1, arbitrary: fc.constant("x".repeat(Math.max(minLength, Math.min(maxLength, 2_000)))) },
  );
}

/**
 * Values for `schema`, `depth` bounding recursion. `hostileWeight` is the share (out of 10) of places where a
 * hostile value replaces a conforming one.
 */
export function fromSchema(schema: Schema | undefined, depth = 3, hostileWeight = 1): fc.Arbitrary<unknown> {
  const conforming = conformingArb(schema, depth, hostileWeight);
  if (hostileWeight <= 0) return conforming;
  return fc.oneof(
    { weight: 10 - hostileWeight, arbitrary: conforming },
    { weight: hostileWeight, arbitrary: hostileScalar },
  );
}

function conformingArb(s: Schema | undefined, depth: number, hostileWeight: number): fc.Arbitrary<unknown> {
  if (!s || depth < 0) return fc.jsonValue({ maxDepth: 2 });
  // The schema's own examples are values the server knows (real limit keys, real paths): use them too.
  if (Array.isArray(s.examples) && s.examples.length > 0) {
    const { examples, ...rest } = s;
    return fc.oneof(
      { weight: 1, arbitrary: fc.constantFrom(...(examples as unknown[])) },
      { weight: 2, arbitrary: conformingArb({ ...rest, exampleKeysFrom: examples }, depth, hostileWeight) },
    );
  }
  if ("const" in s) return fc.constant(s.const);
  if (Array.isArray(s.enum)) return fc.constantFrom(...s.enum);
  const union = s.anyOf ?? s.oneOf;
  if (Array.isArray(union) && union.length > 0)
    return fc.oneof(
      ...union.map((u: Schema) => conformingArb({ ...u, ...pick(s, ["minimum", "maximum"]) }, depth, hostileWeight)),
    );
  switch (s.type) {
    case "string":
      return stringArb(s);
    case "integer":
      return fc.oneof(
        {
          weight: 3,
          arbitrary: fc.integer({
            min: Math.max(s.minimum ?? -1_000, -1e9),
            max: Math.min(s.maximum ?? 1_000_000, 1e9),
          }),
        },
        { weight: 1, arbitrary: boundaryNumbers(s) },
      );
    case "number":
      return fc.oneof(
        {
          weight: 3,
          arbitrary: fc.double({ min: s.minimum ?? -1e6, max: s.maximum ?? 1e6, noNaN: true, noDefaultInfinity: true }),
        },
        { weight: 1, arbitrary: boundaryNumbers(s) },
      );
    case "boolean":
      return fc.boolean();
    case "null":
      return fc.constant(null);
    case "array":
      return fc.array(fromSchema(s.items, depth - 1, hostileWeight), {
        minLength: s.minItems ?? 0,
        maxLength: Math.min(s.maxItems ?? 4, 6),
      });
    case "object":
      return objectArb(s, depth, hostileWeight);
    default:
      return fc.jsonValue({ maxDepth: 2 });
  }
}

/** An edge of a field's schema: its numeric bounds and beyond, or a hostile value. */
function edgeValue(s: Schema): fc.Arbitrary<unknown> {
  const union = s.anyOf ?? s.oneOf;
  const numeric =
    s.type === "integer" ||
    s.type === "number" ||
    (Array.isArray(union) && union.some((u: Schema) => u.type === "integer" || u.type === "number"));
  return numeric ? fc.oneof(boundaryNumbers(s), hostileScalar) : hostileScalar;
}

/** Each side of the schema's bounds, and the numbers past exact integer range. */
function boundaryNumbers(s: Schema): fc.Arbitrary<number> {
  const values = [2 ** 53, 2 ** 53 + 2, -(2 ** 53) - 2, 1e300, -1e300, 0.5, -0];
  for (const bound of [s.minimum, s.maximum]) if (typeof bound === "number") values.push(bound, bound - 1, bound + 1);
  return fc.constantFrom(...values);
}

function pick(s: Schema, keys: string[]): Schema {
  return Object.fromEntries(keys.filter((k) => k in s).map((k) => [k, s[k]]));
}

function objectArb(s: Schema, depth: number, hostileWeight: number): fc.Arbitrary<Record<string, unknown>> {
  const props: Record<string, Schema> = s.properties ?? {};
  const required: string[] = s.required ?? [];
  if (s.patternProperties && Object.keys(props).length === 0) {
    const [pattern, value] = Object.entries(s.patternProperties as Record<string, Schema>)[0]!;
    // Keys from the examples (a record's keys are usually a closed set the pattern does not spell out).
    const exampleKeys = (s.exampleKeysFrom ?? []).flatMap((e: unknown) =>
      e && typeof e === "object" ? Object.keys(e) : [],
    );
    const key =
      exampleKeys.length > 0
        ? fc.oneof(
            { weight: 3, arbitrary: fc.constantFrom(...exampleKeys) },
            { weight: 1, arbitrary: patterned(pattern, 1, 40) },
          )
        : patterned(pattern, 1, 40);
    return fc.dictionary(key, fromSchema(value, depth - 1, hostileWeight), { maxKeys: 4 });
  }
  const record = fc.record(
    Object.fromEntries(Object.entries(props).map(([k, v]) => [k, fromSchema(v, depth - 1, hostileWeight)])),
    { requiredKeys: required.filter((k) => k in props) },
  );
  if (hostileWeight <= 0) return record;
  // A single field set to an edge value: with optional fields (the clock's "exactly one of"), the case
  // a whole-record generator rarely reaches.
  const keys = Object.keys(props);
  const single =
    keys.length > 0
      ? fc
          .constantFrom(...keys)
          .chain((k) =>
            fc.oneof(edgeValue(props[k]!), conformingArb(props[k], depth - 1, hostileWeight)).map((v) => ({ [k]: v })),
          )
      : record;
  // Now and then a field the schema does not know, or a required one missing.
  return fc.oneof(
    { weight: 6, arbitrary: record },
    { weight: 2, arbitrary: single },
    {
      weight: 1,
      arbitrary: fc
        .tuple(record, fc.constantFrom("__proto__", "constructor", "unknownField", "toString"), hostileScalar)
        .map(([r, k, v]) => ({ ...r, ...JSON.parse(JSON.stringify({ [k]: v ?? null })) })),
    },
    {
      weight: 1,
      arbitrary: fc
        .tuple(record, fc.constantFrom(...(required.length > 0 ? required : ["_"])))
        .map(([r, k]) => Object.fromEntries(Object.entries(r).filter(([key]) => key !== k))),
    },
  );
}
