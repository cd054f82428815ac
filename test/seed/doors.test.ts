/**
 * One loader, one answer. What a fuzzing pass found the several doors letting through — counters with more
 * installs active than recorded, one version id in two extensions, a current version that names none, a
 * member's email twice, a stray file in an export's bundles/ — is refused by every loader alike (`ext serve
 * --seed`, `ext seed --data-dir`, `ext seed --target`, `POST /_emulator/seed`), with the field and the reason,
 * from JSON and from an export directory. An export directory that is right loads the same rows through every
 * loader (a snapshot's restore included), its bundles and timestamps exactly as exported.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createHash } from "node:crypto";
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { JSON_BODY_MAX_BYTES } from "../../common/api-rules";
import { readExportArchive } from "../../server/exports/archive";
import type { Fixture } from "../../server/seed/model";
import { validateFixture } from "../../server/seed/validate";
import { bundleDir, createExtension, uploadVersion } from "../helpers/bundles";
import { startTestEmulator, stopTestEmulator, type TestEmulator } from "../helpers/emulator";
import { memoryRuntime } from "../helpers/in-process-app";
import { createLoaders, LOADERS, type Loaders, type Outcome, rowsOf, type Source } from "./loaders";

let loaders: Loaders;
let source: TestEmulator;
let exportDir: string;
let exported: Fixture;
const bundles = bundleDir();
const root = mkdtempSync(join(tmpdir(), "ext-doors-"));

beforeAll(async () => {
  loaders = await createLoaders();
  // A real export: an extension with an approved version on a real bundle, installs, a member and a secret.
  source = await startTestEmulator();
  const id = await createExtension(source, "Exported");
  const submitted = await uploadVersion(source, id, { version: "1.0.0", bundle: await bundles.make() });
  const versionId = submitted.data?.version.id ?? "";
  await source.control.POST("/_emulator/versions/{versionId}/approve", { params: { path: { versionId } } });
  await source.control.POST("/_emulator/extensions/{id}/installs", { params: { path: { id } }, body: { count: 5 } });
  await source.control.POST("/_emulator/accounts/{accountId}/members", {
    params: { path: { accountId: "acc_test" } },
    body: { email: "dev@example.com", role: "developer" },
  });
  await source.client.PUT("/developer/v1/extensions/{id}/secrets/{key}", {
    params: { path: { id, key: "TOKEN" } },
    body: { value: "exported-secret-value" },
  });
  const res = await fetch(`${source.adminUrl}/export`, {
    headers: { authorization: `Bearer ${source.runtime.control.adminToken}` },
  });
  exportDir = join(root, "export");
  await readExportArchive(res.body!, exportDir);
  exported = JSON.parse(readFileSync(join(exportDir, "fixture.json"), "utf8"));
}, 60_000);

afterAll(async () => {
  await loaders.close();
  await stopTestEmulator(source);
  bundles.cleanup();
  rmSync(root, { recursive: true, force: true });
});

let copies = 0;
/** The export directory again, its fixture.json changed by `edit` (and its bundles/ by `files`). */
function exportWith(edit: (f: Fixture) => void, files?: (bundlesDir: string) => void): Source {
  const dir = join(root, `copy-${copies++}`);
  cpSync(exportDir, dir, { recursive: true });
  const fixture = structuredClone(exported);
  edit(fixture);
  writeFileSync(join(dir, "fixture.json"), JSON.stringify(fixture, null, 2));
  files?.(join(dir, "bundles"));
  return { dir };
}

/** The exported account (its extension, its member) and its path in the export. */
const testAccount = (f: Fixture) => f.accounts.find((a) => a.id === "acc_test")!;
const firstExtension = (f: Fixture) => testAccount(f).extensions![0]!;
const at = () => `accounts[${exported.accounts.findIndex((a) => a.id === "acc_test")}]`;

/** Every loader's outcome, each refusal with its path and message: all alike. */
async function expectRefusedAlike(input: Source, problem: string | RegExp): Promise<Record<string, Outcome>> {
  const outcomes = await loaders.all(input);
  for (const name of LOADERS.filter((l) => l !== "snapshot restore")) {
    const outcome = outcomes[name];
    expect({ name, accepted: outcome.accepted }).toEqual({ name, accepted: false });
    if (!outcome.accepted)
      expect({ name, problem: outcome.problem }).toEqual({ name, problem: expect.stringMatching(problem) });
  }
  return outcomes;
}

const account = (extra: object) => ({ accounts: [{ id: "acc_doors", name: "Doors", ...extra }] });
const withExtension = (extra: object) =>
  account({ extensions: [{ id: "ext_doors", name: "Doors", versions: [{ version: "1.0.0" }], ...extra }] });
const exactly = (s: string) => new RegExp(`^${s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}$`);

describe("from JSON, every loader refuses alike, naming the field and the reason", () => {
  test("install counters with more installs active than recorded", async () => {
    const counters = [{ version: "1.0.0", installed: 5, active: 6, firstInstalledAt: "2030-01-01T00:00:00.000Z" }];
    await expectRefusedAlike(
      { json: withExtension({ installCounters: counters }) },
      exactly(
        "accounts[0].extensions[0].installCounters: installCounters: 6 installs active is more than the 5 ever recorded.",
      ),
    );
  });

  test("one version id in two extensions", async () => {
    const version = { id: "ver_shared_0000000000000000000", version: "1.0.0" };
    const extensions = [
      { id: "ext_one", name: "One", versions: [version] },
      { id: "ext_two", name: "Two", versions: [version] },
    ];
    await expectRefusedAlike(
      { json: account({ extensions }) },
      exactly('accounts[0].extensions[1].versions[0].id: duplicate version id "ver_shared_0000000000000000000"'),
    );
  });

  test("a currentVersionId that names no version: refused, never served nor silently nulled", async () => {
    await expectRefusedAlike(
      { json: withExtension({ currentVersionId: "ver_nobody" }) },
      exactly('accounts[0].extensions[0].currentVersionId: "ver_nobody" names no version of this extension'),
    );
  });

  test("a member's email twice, in another case: the members route's member_exists reason", async () => {
    const teamMembers = [
      { email: "dev@example.com", role: "developer" },
      { email: "Dev@Example.com", role: "admin" },
    ];
    await expectRefusedAlike(
      { json: account({ teamMembers }) },
      exactly('accounts[0].teamMembers[1].email: "dev@example.com" is already a member of this account.'),
    );
  });
});

describe("an export directory", () => {
  test("loads the same rows through every loader, bundles and timestamps exactly as exported", async () => {
    const outcomes = await loaders.all({ dir: exportDir });
    const rows = Object.values(outcomes).map((o) => (o.accepted ? o.rows : o.problem));
    for (const r of rows) expect(r).toBe(rows[0]!);
    // Every column of every row as the exported server has it (only blob ids, keyed hashes and sealed bytes,
    // which are the loading server's own, are set aside; the rows may come in another order).
    const input = readFileSync(join(exportDir, "fixture.json"), "utf8");
    const set = (text: string) =>
      text
        .replace(/<id\d+>/g, "<id>")
        .split("\n")
        .sort();
    expect(set(rows[0]!)).toEqual(set(rowsOf(source.runtime.db, input)));
    const version = firstExtension(exported).versions![0]!;
    const loaded = rows[0]!.split("\n").find((l) => l.startsWith("versions "))!;
    expect(loaded).toContain(`"id":"${version.id}"`);
    expect(loaded).toContain(`"bundle_sha256":"${version.bundle!.sha256}"`);
    expect(loaded).toContain(`"submitted_at":"${version.submittedAt}"`);
    expect(loaded).toContain(`"approved_at":"${version.approvedAt}"`);
    expect(version.bundle!.sha256).toBe(
      createHash("sha256")
        .update(readFileSync(join(exportDir, version.bundle!.file!)))
        .digest("hex"),
    );
  });

  test("install counters with more installs active than recorded", async () => {
    const input = exportWith((f) => {
      const counter = firstExtension(f).installCounters![0]!;
      counter.active = counter.installed + 1;
    });
    await expectRefusedAlike(
      input,
      exactly(
        `${at()}.extensions[0].installCounters: installCounters: 6 installs active is more than the 5 ever recorded.`,
      ),
    );
  });

  test("its version listed again under another extension: refused, not renamed onto a placeholder", async () => {
    const input = exportWith((f) => {
      const x = firstExtension(f);
      const copy = {
        ...structuredClone(x),
        id: "ext_copy",
        slug: "copy",
        name: "Copy",
        installCounters: [],
        secrets: [],
      };
      delete (copy as { currentVersionId?: string }).currentVersionId;
      testAccount(f).extensions!.push(copy);
    });
    const version = firstExtension(exported).versions![0]!;
    await expectRefusedAlike(
      input,
      exactly(`${at()}.extensions[1].versions[0].id: duplicate version id "${version.id}"`),
    );
  });

  test("a currentVersionId that names no version", async () => {
    const input = exportWith((f) => {
      firstExtension(f).currentVersionId = "ver_nobody";
    });
    await expectRefusedAlike(
      input,
      exactly(`${at()}.extensions[0].currentVersionId: "ver_nobody" names no version of this extension`),
    );
  });

  test("a member's email twice, in another case", async () => {
    const input = exportWith((f) => {
      testAccount(f).teamMembers!.push({ email: "DEV@example.com", role: "viewer" });
    });
    await expectRefusedAlike(
      input,
      exactly(`${at()}.teamMembers[1].email: "dev@example.com" is already a member of this account.`),
    );
  });

  test("a file its fixture does not name in bundles/: refused by every loader, naming the file", async () => {
    const junk = exportWith(
      () => {},
      (dir) => writeFileSync(join(dir, "notes.txt"), "not a bundle"),
    );
    await expectRefusedAlike(junk, /notes\.txt/);
    // A well-named bundle no version names: the directory loaders and the archive alike.
    const stray = Buffer.from("a stray bundle");
    const digest = createHash("sha256").update(stray).digest("hex");
    const unreferenced = exportWith(
      () => {},
      (dir) => {
        mkdirSync(dir, { recursive: true });
        writeFileSync(join(dir, `${digest}.tar.gz`), stray);
      },
    );
    await expectRefusedAlike(
      unreferenced,
      new RegExp(`^bundles: .*bundles/${digest}\\.tar\\.gz is not a bundle fixture\\.json names`),
    );
  });
});

describe("against what an earlier load left", () => {
  test("a version id another extension holds, and a current version that is not the newest approved", async () => {
    const runtime = memoryRuntime();
    try {
      const version = { id: "ver_held_00000000000000000000", version: "1.0.0" };
      runtime.seed(validateFixture(account({ extensions: [{ id: "ext_one", name: "One", versions: [version] }] })));
      const again = account({ extensions: [{ id: "ext_two", name: "Two", versions: [version] }] });
      expect(() => runtime.seed(validateFixture(again))).toThrow(
        'accounts[0].extensions[0].versions[0].id: id: "ver_held_00000000000000000000" is already the id of a version of extension ext_one.',
      );
      const older = account({
        extensions: [
          {
            id: "ext_three",
            name: "Three",
            versions: [
              { id: "ver_older_0000000000000000000", version: "1.0.0" },
              { id: "ver_newer_0000000000000000000", version: "1.1.0" },
            ],
            currentVersionId: "ver_older_0000000000000000000",
          },
        ],
      });
      expect(() => runtime.seed(validateFixture(older))).toThrow(
        'accounts[0].extensions[0].currentVersionId: "ver_older_0000000000000000000" is version "1.0.0", not the current one: review makes the newest approved version current ("1.1.0")',
      );
      // Nothing of the refused loads is left: ext_one and its version only.
      const ids = runtime.db.$client.query<{ id: string }, []>("SELECT id FROM versions").all();
      expect(ids.map((r) => r.id)).toEqual(["ver_held_00000000000000000000"]);
    } finally {
      runtime.close();
    }
  });
});

test("a fixture past the JSON body cap loads through ext seed --target (as an archive) as through --seed", async () => {
  // Few rows, long descriptions: over 1 MiB of JSON that loads in a moment.
  const accounts = Array.from({ length: 3 }, (_, i) => ({
    id: `acc_large_${i}`,
    name: `Developer ${i}`,
    extensions: Array.from({ length: 20 }, (_, j) => ({ name: `Extension ${j}`, description: "d".repeat(19_000) })),
  }));
  const json = { accounts };
  expect(JSON.stringify(json).length).toBeGreaterThan(JSON_BODY_MAX_BYTES);
  const serve = await loaders.run("ext serve --seed", { json });
  expect(serve.accepted).toBe(true);
  expect(await loaders.run("ext seed --target", { json })).toEqual(serve);
});
