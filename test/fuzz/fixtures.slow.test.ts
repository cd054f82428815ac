/**
 * Fuzzing of the one loader. A rich fixture and a real export directory are mutated at random — any field
 * deleted, set to a value of another type or at a boundary, copied from another field, duplicated, its case
 * changed; for the directory also its bundle files added to, removed or damaged — and each mutant goes through
 * every loader (test/seed/loaders.ts: `ext serve --seed`, `ext seed --data-dir`, `ext seed --target`,
 * `POST /_emulator/seed`, a snapshot's restore). Properties: the loaders never disagree (all accept with the same
 * rows, or all refuse, the directory loaders with the same field and reason); an accepted mutant leaves a state
 * the API could have made (test/seed/invariants.ts); a refused one leaves nothing.
 *
 * A fixed seed in the slow suite; `npm run fuzz` (scripts/fuzz.ts) runs it with many more runs and a printed
 * seed. Replay a failure with EXT_FUZZ_SEED=<seed> (the report prints the mutations).
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import fc from "fast-check";
import { readExportArchive } from "../../server/exports/archive";
import { exportState } from "../../server/exports/document";
import { bundleDir, createExtension, uploadVersion } from "../helpers/bundles";
import { startTestEmulator, stopTestEmulator, type TestEmulator } from "../helpers/emulator";
import { givenButNotKept, stateProblems } from "../seed/invariants";
import { createLoaders, LOADERS, type Loaders, type Outcome, type Source } from "../seed/loaders";

// Test files may read the environment (the rule is for server/ and tools/): this is how `npm run fuzz` steers it.
const SEED = Number(process.env.EXT_FUZZ_SEED ?? 0x46);
const RUNS = Number(process.env.EXT_FUZZ_RUNS ?? 20);
const TIMEOUT_MS = Math.max(300_000, RUNS * 10_000);

const AT = (day: number) => `2030-01-${String(day).padStart(2, "0")}T00:00:00.000Z`;

/** A fixture that uses every part of the format, loadable as it is. */
const BASE: unknown = {
  formatVersion: 2,
  clock: { now: AT(20), mode: "frozen" },
  accounts: [
    {
      id: "acc_fuzz",
      name: "Fuzz Developer",
      createdAt: AT(1),
      apiKeys: [
        { name: "ci", key: "ext_fuzz_key_0123456789abcdefghijklmnop", scopes: ["*"] },
        { name: "reader", scopes: ["extensions:read"] },
        { name: "old", key: "ext_fuzz_old_0123456789abcdefghijklmnop", scopes: ["*"], revokedAt: AT(2) },
      ],
      overrides: { max_api_keys: 30 },
      teamMembers: [
        { email: "dev@example.com", role: "developer" },
        { email: "owner@example.com", role: "owner", createdAt: AT(2) },
      ],
      extensions: [
        {
          id: "ext_fuzz",
          name: "Fuzz Board",
          short_description: "A board",
          visibility: "public",
          overrides: { max_secrets_per_extension: 5 },
          versions: [
            { version: "1.0.0", changelog: "first" },
            { version: "1.1.0" },
            { version: "2.0.0-beta", status: "pending" },
          ],
          installs: { byVersion: { "1.0.0": 10, "1.1.0": 5 }, active: 12 },
          secrets: [{ name: "TOKEN", value: "fuzz-secret-value" }, { name: "OTHER" }],
        },
        {
          id: "ext_fuzz_exported",
          name: "Exported Row",
          slug: "exported-row",
          status: "approved",
          visibility: "unlisted",
          ratingCount: 3,
          createdAt: AT(3),
          updatedAt: AT(4),
          versions: [
            {
              id: "ver_fuzz_old_000000000000000000",
              version: "0.9.0",
              status: "rejected",
              rejectReason: "no",
              submittedAt: AT(3),
              rejectedAt: AT(4),
            },
            { id: "ver_fuzz_new_000000000000000000", version: "1.0.0", submittedAt: AT(4), approvedAt: AT(5) },
          ],
          currentVersionId: "ver_fuzz_new_000000000000000000",
          installCounters: [{ version: "1.0.0", installed: 7, active: 6, firstInstalledAt: AT(6) }],
        },
      ],
      limitRequests: [
        {
          id: "req_fuzz_pending",
          scope: "extension",
          extensionId: "ext_fuzz",
          limits: { max_sounds_per_extension: 80 },
          reason: "our extension needs more sounds",
          status: "pending",
          createdAt: AT(7),
        },
        {
          id: "req_fuzz_rejected",
          scope: "account",
          limits: { max_extensions_per_account: 40 },
          reason: "we publish many small extensions",
          status: "rejected",
          decisionReason: "not now",
          createdAt: AT(7),
          decidedAt: AT(8),
        },
      ],
    },
  ],
};

let loaders: Loaders;
let source: TestEmulator;
let exportDir: string;
const bundles = bundleDir();
const root = mkdtempSync(join(tmpdir(), "ext-fuzz-fixtures-"));
/** What the invariants found broken in the state of the last accepted load. */
let broken: string[] = [];
/** The fixture document being loaded. */
let given: unknown;

beforeAll(async () => {
  loaders = await createLoaders({
    onAccepted(runtime) {
      broken.push(...stateProblems(runtime));
      const exported = exportState(runtime, { includeSecretValues: true }).document;
      broken.push(...givenButNotKept(given, exported));
    },
  });
  // A real export: versions on real bundles (approved, rejected, pending), installs moved by a rollout and
  // uninstalled, a member, a secret, a decided limit request, overrides.
  source = await startTestEmulator();
  const id = await createExtension(source, "Exported Board");
  const control = source.control;
  const versionIds: string[] = [];
  for (const version of ["1.0.0", "1.1.0", "1.2.0", "2.0.0"]) {
    const submitted = await uploadVersion(source, id, { version, bundle: await bundles.make() });
    versionIds.push(submitted.data?.version.id ?? "");
  }
  const [v1, v2, v3] = versionIds as [string, string, string];
  for (const versionId of [v1, v2])
    await control.POST("/_emulator/versions/{versionId}/approve", { params: { path: { versionId } } });
  await control.POST("/_emulator/versions/{versionId}/reject", {
    params: { path: { versionId: v3 } },
    body: { reason: "crashes on start" },
  });
  const byId = { params: { path: { id } } };
  await control.POST("/_emulator/extensions/{id}/installs", { ...byId, body: { versionId: v1, count: 40 } });
  await control.POST("/_emulator/extensions/{id}/rollouts", { ...byId, body: { fromVersionId: v1, count: 15 } });
  await control.POST("/_emulator/extensions/{id}/uninstalls", { ...byId, body: { count: 5 } });
  await control.POST("/_emulator/accounts/{accountId}/members", {
    params: { path: { accountId: "acc_test" } },
    body: { email: "member@example.com", role: "viewer" },
  });
  await source.client.PUT("/developer/v1/extensions/{id}/secrets/{key}", {
    params: { path: { id, key: "API_TOKEN" } },
    body: { value: "exported-fuzz-secret" },
  });
  await source.client.PATCH("/developer/v1/extensions/{id}", { ...byId, body: { visibility: "public" } });
  await control.PUT("/_emulator/overrides/extensions/{id}", { ...byId, body: { max_sounds_per_extension: 60 } });
  const request = await control.POST("/_emulator/limit-requests", {
    body: {
      accountId: "acc_test",
      scope: "account",
      limits: { max_api_keys: 30 },
      reason: "our CI runs many jobs at once",
    },
  });
  await control.POST("/_emulator/limit-requests/{id}/approve", {
    params: { path: { id: request.data?.limitRequest.id ?? "" } },
    body: {},
  });
  const res = await fetch(`${source.adminUrl}/export`, {
    headers: { authorization: `Bearer ${source.runtime.control.adminToken}` },
  });
  exportDir = join(root, "export");
  await readExportArchive(res.body!, exportDir);
}, 120_000);

afterAll(async () => {
  await loaders?.close();
  await stopTestEmulator(source);
  bundles.cleanup();
  rmSync(root, { recursive: true, force: true });
});

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type Path = (string | number)[];

/** Every node of the document but its root, as paths. */
function pathsOf(node: Json, at: Path = []): Path[] {
  if (node === null || typeof node !== "object") return [];
  const children: [string | number, Json][] = Array.isArray(node) ? node.map((v, i) => [i, v]) : Object.entries(node);
  return children.flatMap(([key, value]) => [[...at, key], ...pathsOf(value, [...at, key])]);
}

const parentOf = (doc: Json, path: Path) => path.slice(0, -1).reduce<Json>((n, k) => (n as never)[k], doc) as never;
const valueAt = (doc: Json, path: Path): Json => path.reduce<Json>((n, k) => (n as never)[k], doc);

/** Values a field may be set to: other types, boundaries, look-alikes of real values. */
const VALUES: Json[] = [
  null,
  true,
  0,
  -1,
  1.5,
  2 ** 53,
  1e13,
  "",
  " ",
  "x".repeat(300),
  "UPPER Case",
  "ver_nobody",
  "acc_fuzz",
  "ext_fuzz",
  AT(9),
  "2031-02-31T00:00:00.000Z",
  "approved",
  "rejected",
  "archived",
  "owner",
  [],
  {},
  { type: "free" },
];

const INSTANT = /^\d{4}-\d{2}-\d{2}T/;
const ID = /^[A-Za-z0-9_-]{1,64}$/;

type Mutation =
  | { op: "delete"; at: number }
  | { op: "set"; at: number; value: Json }
  | { op: "alike"; at: number; pick: number }
  | { op: "copy"; at: number; from: number }
  | { op: "duplicate"; at: number }
  | { op: "case"; at: number };

// Most mutants keep the field's type (another value of the document, or a boundary of that type): those pass the
// schema and reach the rules that need the database, where what one entry says can contradict another.
const mutationArb: fc.Arbitrary<Mutation> = fc.oneof(
  { weight: 4, arbitrary: fc.record({ op: fc.constant("alike" as const), at: fc.nat(), pick: fc.nat() }) },
  { weight: 2, arbitrary: fc.record({ op: fc.constant("delete" as const), at: fc.nat() }) },
  {
    weight: 1,
    arbitrary: fc.record({ op: fc.constant("set" as const), at: fc.nat(), value: fc.constantFrom(...VALUES) }),
  },
  { weight: 1, arbitrary: fc.record({ op: fc.constant("copy" as const), at: fc.nat(), from: fc.nat() }) },
  { weight: 1, arbitrary: fc.record({ op: fc.constant("duplicate" as const), at: fc.nat() }) },
  { weight: 1, arbitrary: fc.record({ op: fc.constant("case" as const), at: fc.nat() }) },
);

/** Applies the mutation to `doc` (in place); returns what it did, for the report. */
function mutate(doc: Json, m: Mutation): string {
  const paths = pathsOf(doc);
  // A value is changed in place (alike, case) at a leaf; anything may be deleted, duplicated or replaced.
  const leaves = paths.filter((p) => {
    const v = valueAt(doc, p);
    return v === null || typeof v !== "object";
  });
  const among = m.op === "alike" || m.op === "case" ? leaves : paths;
  if (among.length === 0) return "nothing to mutate";
  const path = among[m.at % among.length]!;
  const parent = parentOf(doc, path) as Record<string | number, Json> & Json[];
  const key = path.at(-1)!;
  const where = path.join(".");
  switch (m.op) {
    case "delete":
      if (Array.isArray(parent)) parent.splice(key as number, 1);
      else delete parent[key];
      return `delete ${where}`;
    case "set":
      parent[key] = structuredClone(m.value);
      return `set ${where} = ${JSON.stringify(m.value).slice(0, 40)}`;
    case "alike": {
      // Another value of the same shape — an id for an id, an instant for an instant, a number for a number —
      // from the document itself (the same field of another entry first), or of VALUES: it passes the schema,
      // and may contradict what another entry says.
      const current = parent[key];
      const shape = (v: Json | undefined) =>
        typeof v !== "string" ? typeof v : INSTANT.test(v) ? "instant" : ID.test(v) ? "id" : "text";
      const sameField = leaves.filter((p) => p.at(-1) === key && p.join() !== path.join()).map((p) => valueAt(doc, p));
      const sameShape = [...leaves.map((p) => valueAt(doc, p)), ...VALUES].filter((v) => shape(v) === shape(current));
      const candidates = [...sameField, ...sameField, ...sameShape];
      const value = candidates[m.pick % candidates.length] ?? null;
      parent[key] = value;
      return `set ${where} = ${JSON.stringify(value).slice(0, 40)}`;
    }
    case "copy": {
      const from = paths[m.from % paths.length]!;
      parent[key] = structuredClone(valueAt(doc, from));
      return `copy ${from.join(".")} to ${where}`;
    }
    case "duplicate": {
      const value = parent[key];
      if (Array.isArray(value) && value.length > 0) value.push(structuredClone(value[0] as Json));
      else if (Array.isArray(parent) && value !== undefined) parent.push(structuredClone(value));
      return `duplicate ${where}`;
    }
    case "case": {
      const value = parent[key];
      if (typeof value === "string") parent[key] = value.toUpperCase();
      return `upper-case ${where}`;
    }
  }
}

type FileOp = "none" | "junk" | "stray bundle" | "drop a bundle" | "damage a bundle";

function mutateFiles(dir: string, op: FileOp): string {
  const bundlesDir = join(dir, "bundles");
  mkdirSync(bundlesDir, { recursive: true });
  const names = readdirSync(bundlesDir).sort();
  if (op === "junk") writeFileSync(join(bundlesDir, "notes.txt"), "not a bundle");
  if (op === "stray bundle") writeFileSync(join(bundlesDir, `${"ab".repeat(32)}.tar.gz`), "stray");
  if (op === "drop a bundle" && names[0]) rmSync(join(bundlesDir, names[0]));
  if (op === "damage a bundle" && names[0]) writeFileSync(join(bundlesDir, names[0]), "damaged");
  return op === "none" ? "" : `; files: ${op}`;
}

/** A refusal's words, with the place a directory was read from said the same way for every loader. */
const normalized = (problem: string, dir: string | null) =>
  (dir ? problem.split(dir).join("<dir>") : problem).split("uploaded archive").join("<dir>");

/** The properties, on one input: the loaders agree; an accepted state is one the API could have made. */
async function checkOne(input: Source, what: string): Promise<void> {
  broken = [];
  given = "json" in input ? input.json : JSON.parse(readFileSync(join(input.dir, "fixture.json"), "utf8"));
  const outcomes = await loaders.all(input);
  const report = `${what}\n${JSON.stringify(outcomes, null, 1).slice(0, 3000)}`;
  const verdicts = new Set(Object.values(outcomes).map((o) => o.accepted));
  expect(verdicts.size, `loaders disagree on ${report}`).toBe(1);
  if (outcomes["ext serve --seed"].accepted) {
    const rows = new Set(Object.values(outcomes).map((o) => (o as Extract<Outcome, { accepted: true }>).rows));
    expect(rows.size, `loaders left different rows for ${report}`).toBe(1);
    expect(broken, `an accepted input left a state the API would refuse: ${report}`).toEqual([]);
    return;
  }
  const dir = "dir" in input ? input.dir : null;
  // The same field and reason, except where an archive's reader refused an entry first, in its own words
  // (its field is the body): `ext seed --target` and POST send an export directory as an archive.
  const reasons = new Set(
    LOADERS.map((l) => normalized((outcomes[l] as { problem: string }).problem, dir)).filter(
      (p) => !p.startsWith("body: "),
    ),
  );
  expect(reasons.size, `loaders refuse with different reasons: ${report}`).toBe(1);
}

test("the unmutated fixture and export load through every loader into a state the API could have made", async () => {
  await checkOne({ json: BASE }, "the base fixture");
  await checkOne({ dir: exportDir }, "the export");
}, 120_000);

test(
  "a mutated fixture: the loaders agree, and what they accept the API would have made",
  async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(mutationArb, { minLength: 1, maxLength: 3 }), async (mutations) => {
        const doc = structuredClone(BASE) as Json;
        const what = mutations.map((m) => mutate(doc, m)).join("; ");
        await checkOne({ json: doc }, `fixture: ${what}`);
      }),
      { seed: SEED, numRuns: RUNS },
    );
  },
  TIMEOUT_MS,
);

let copies = 0;
test(
  "a mutated export directory: the loaders agree, and what they accept the API would have made",
  async () => {
    const exported = JSON.parse(readFileSync(join(exportDir, "fixture.json"), "utf8")) as Json;
    const fileOps: FileOp[] = ["none", "none", "none", "junk", "stray bundle", "drop a bundle", "damage a bundle"];
    await fc.assert(
      fc.asyncProperty(
        fc.array(mutationArb, { minLength: 0, maxLength: 3 }),
        fc.constantFrom(...fileOps),
        async (mutations, fileOp) => {
          const dir = join(root, `mutant-${copies++}`);
          cpSync(exportDir, dir, { recursive: true });
          const doc = structuredClone(exported);
          const what = mutations.map((m) => mutate(doc, m)).join("; ") + mutateFiles(dir, fileOp);
          writeFileSync(join(dir, "fixture.json"), JSON.stringify(doc, null, 2));
          try {
            await checkOne({ dir }, `export: ${what}`);
          } finally {
            rmSync(dir, { recursive: true, force: true });
          }
        },
      ),
      { seed: SEED + 1, numRuns: RUNS },
    );
  },
  TIMEOUT_MS,
);
