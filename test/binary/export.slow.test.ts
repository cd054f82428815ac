/**
 * The compiled binary: `ext serve --export-on-exit DIR` writes the state on SIGTERM; `ext export DIR` writes
 * the same from a running emulator; `ext serve --seed DIR` and `ext seed DIR --target` load it; an export whose
 * bundle does not match its digest, or of a newer format, is refused naming the file and the entry.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { writeTarGz } from "../../scripts/lib/archive-writer";
import { validEntries } from "../../scripts/lib/samples";
import { BUILD_TIMEOUT_MS, type Built, buildBinary, run, serve } from "./helpers";

const KEY = "ext_demo_0123456789abcdefghijklmnopqrstuv";
let built: Built;
beforeAll(() => {
  built = buildBinary();
}, BUILD_TIMEOUT_MS);
afterAll(() => built?.cleanup());

const get = async (base: string, path: string) =>
  (await fetch(base + path, { headers: { authorization: `Bearer ${KEY}` } })).text();

describe("export on the compiled binary", () => {
  test("--export-on-exit on SIGTERM, ext export, and both loaded back answer the same reads", async () => {
    const onExit = join(built.work, "on-exit");
    const a = await serve(built.bin, ["--memory", "--seed", "demo", "--export-on-exit", onExit], built.work);
    const created = await fetch(`${a.baseUrl}/extensions`, {
      method: "POST",
      headers: { authorization: `Bearer ${KEY}`, "content-type": "application/json" },
      body: JSON.stringify({ name: "Exported Board" }),
    });
    const id = ((await created.json()) as { extension: { id: string } }).extension.id;
    const bundle = join(built.work, "b.tar.gz");
    await writeTarGz(validEntries(), bundle);
    const form = new FormData();
    form.append("version", "2.0.0");
    form.append("bundle", Bun.file(bundle), "bundle.tar.gz");
    const submitted = await fetch(`${a.baseUrl}/extensions/${id}/versions`, {
      method: "POST",
      headers: { authorization: `Bearer ${KEY}` },
      body: form,
    });
    expect(submitted.status).toBe(202);
    const before = [await get(a.baseUrl, "/extensions"), await get(a.baseUrl, `/extensions/${id}/versions`)];

    // A key made through the API: exported as its hash only.
    const ci = await fetch(`${a.url}/_emulator/accounts/acc_demo/keys`, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: `Bearer ${a.adminToken}` },
      body: JSON.stringify({ name: "ci", scopes: ["*"] }),
    });
    expect(ci.status).toBe(201);
    const exported = join(built.work, "exported");
    // A --memory server has no server.json: its owner gives the token from the ready file.
    const cli = await run(built.bin, ["export", exported, "--target", a.url], {
      cwd: built.work,
      env: { EXT_ADMIN_TOKEN: a.adminToken },
    });
    expect(cli.stderr).toBe("");
    expect(cli.code).toBe(0);
    expect(await a.stop()).toBe(0);
    expect(existsSync(join(onExit, "fixture.json"))).toBe(true);
    // The same document but for the instant it was written.
    const instantless = (dir: string) =>
      readFileSync(join(dir, "fixture.json"), "utf8").replace(/"(exportedAt|now)": "[^"]+"/g, '"$1": "…"');
    expect(instantless(onExit)).toBe(instantless(exported));
    expect(readdirSync(join(onExit, "bundles")).sort()).toEqual(readdirSync(join(exported, "bundles")).sort());

    // Loaded at start from the directory.
    const b = await serve(built.bin, ["--memory", "--seed", onExit], built.work);
    try {
      expect([await get(b.baseUrl, "/extensions"), await get(b.baseUrl, `/extensions/${id}/versions`)]).toEqual(before);
    } finally {
      await b.stop();
    }

    // Loaded into a running, empty emulator through its control plane.
    const c = await serve(built.bin, ["--memory", "--empty"], built.work);
    try {
      const seeded = await run(built.bin, ["seed", exported, "--target", c.url], {
        cwd: built.work,
        env: { EXT_ADMIN_TOKEN: c.adminToken },
      });
      expect(seeded.code).toBe(0);
      expect([await get(c.baseUrl, "/extensions"), await get(c.baseUrl, `/extensions/${id}/versions`)]).toEqual(before);
    } finally {
      await c.stop();
    }

    // Private like the data directory (fixture.json may hold plaintext keys): folders 0700, files 0600, both
    // for an export and for the bundle files a load writes into a data directory.
    const seededDir = join(built.work, "data-from-export");
    const seededOut = await run(built.bin, ["seed", exported, "--data-dir", seededDir], { cwd: built.work });
    expect(seededOut.code).toBe(0);
    // The demo key was given in plaintext (not shown: stdout is a pipe); a key made through the API travels as a
    // hash, said as such.
    expect(seededOut.stdout).not.toContain(KEY);
    expect(seededOut.stdout).toContain(
      'api key: "demo" (account acc_demo): not printed: output is not a terminal; as written in the fixture',
    );
    expect(seededOut.stdout).toContain(
      'api key: "ci" (account acc_demo): a hash from an export, valid only with the data directory it came from',
    );
    for (const [dir, expected] of [
      [onExit, 0o700],
      [join(onExit, "bundles"), 0o700],
      [exported, 0o700],
      [join(exported, "bundles"), 0o700],
    ] as const)
      expect({ dir, mode: statSync(dir).mode & 0o777 }).toEqual({ dir, mode: expected });
    const files = [
      join(onExit, "fixture.json"),
      join(exported, "fixture.json"),
      ...readdirSync(join(exported, "bundles")).map((f) => join(exported, "bundles", f)),
      ...readdirSync(join(seededDir, "blobs", "objects")).map((f) => join(seededDir, "blobs", "objects", f)),
    ];
    expect(files.length).toBeGreaterThan(3);
    for (const file of files) expect({ file, mode: statSync(file).mode & 0o777 }).toEqual({ file, mode: 0o600 });

    // A bundle whose bytes do not match their digest, and a newer format: refused, naming file and entry.
    const [file] = readdirSync(join(exported, "bundles"));
    writeFileSync(join(exported, "bundles", file!), "not the bundle");
    const tampered = await run(built.bin, ["seed", exported, "--data-dir", join(built.work, "data-t")], {
      cwd: built.work,
    });
    expect(tampered.code).toBe(2);
    expect(tampered.stderr).toContain(`bundles/${file}`);
    expect(tampered.stderr).toContain("does not match its recorded digest");
    expect(tampered.stderr).toMatch(/accounts\[\d\]\.extensions\[\d\]\.versions\[0\]\.bundle/);
    const doc = JSON.parse(readFileSync(join(onExit, "fixture.json"), "utf8"));
    writeFileSync(join(onExit, "fixture.json"), JSON.stringify({ ...doc, formatVersion: 3 }));
    const newer = await run(built.bin, ["seed", onExit, "--data-dir", join(built.work, "data-n")], { cwd: built.work });
    expect(newer.code).toBe(2);
    expect(newer.stderr).toContain(join(onExit, "fixture.json"));
    expect(newer.stderr).toContain("format 3 is newer than this emulator reads");
  }, 60_000);
});
