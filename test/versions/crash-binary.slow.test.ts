/**
 * The compiled binary killed with SIGKILL in the middle of concurrent writes (extension creates, secret
 * PUTs, version uploads), then restarted on the same data directory. Every write that was acknowledged
 * (2xx) is there; a write that was not is either wholly there or not at all; no version row without its
 * bundle file, no bundle file without its row, no temp file; every secret decrypts.
 */

import { Database } from "bun:sqlite";
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { validEntries } from "../../scripts/lib/samples";
import { createSecretCipher, SECRETS_KEY_FILE } from "../../server/resources/secrets/cipher";
import { BUILD_TIMEOUT_MS, type Built, buildBinary, goneSoon, type ServedBinary, serve } from "../binary/helpers";
import { bundleDir } from "../helpers/bundles";
import { baseFixture, DEMO_KEY } from "../helpers/emulator";
import { writeFixture } from "../helpers/subprocess";
import { waitFor } from "../helpers/wait-for";

const EXT = "ext_crash";
let built: Built;
const dir = mkdtempSync(join(tmpdir(), "ext-crash-bin-"));
const dataDir = join(dir, "data");
const bundles = bundleDir();
let server: ServedBinary | undefined;

beforeAll(() => {
  built = buildBinary();
}, BUILD_TIMEOUT_MS);
afterAll(async () => {
  if (server) process.kill(server.pid, "SIGKILL");
  built?.cleanup();
  bundles.cleanup();
  rmSync(dir, { recursive: true, force: true });
});

type Outcome = "acked" | "refused" | "unknown";

/** What the clients sent and heard: `unknown` = no answer (the server died while it was in flight). */
const sent = {
  extensions: new Map<string, Outcome>(), // by name
  secrets: new Map<string, { value: string; outcome: Outcome }[]>(), // by name, in order
  versions: new Map<string, Outcome>(), // by label
};

async function send(url: string, init: RequestInit): Promise<Outcome> {
  try {
    const res = await fetch(url, {
      ...init,
      headers: { authorization: `Bearer ${DEMO_KEY}`, ...(init.headers as Record<string, string>) },
    });
    await res.arrayBuffer();
    return res.ok ? "acked" : "refused";
  } catch {
    return "unknown";
  }
}

/** One client, writing until the server stops answering. */
async function worker(base: string, w: number, bundles: string[], stop: { dead: boolean }) {
  for (let i = 0; !stop.dead; i++) {
    const kind = (w + i) % 3;
    if (kind === 0) {
      const name = `Crash ${w}-${i}`;
      sent.extensions.set(name, "unknown");
      sent.extensions.set(
        name,
        await send(`${base}/extensions`, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ name }),
        }),
      );
    } else if (kind === 1) {
      // Each worker owns its names, so its writes to one name are ordered: the last acknowledged value, or
      // a later one whose answer was lost, is what a restart must show.
      const name = `S_${w}_${i % 4}`;
      const value = `value-${w}-${i}-${"x".repeat(i % 7)}`;
      const history = sent.secrets.get(name) ?? [];
      sent.secrets.set(name, history);
      const entry = { value, outcome: "unknown" as Outcome };
      history.push(entry);
      entry.outcome = await send(`${base}/extensions/${EXT}/secrets/${name}`, {
        method: "PUT",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ value }),
      });
    } else {
      const label = `${w}.${i}.0`;
      const form = new FormData();
      form.append("version", label);
      form.append("bundle", Bun.file(bundles[i % bundles.length]!), "b.tar.gz");
      sent.versions.set(label, "unknown");
      sent.versions.set(label, await send(`${base}/extensions/${EXT}/versions`, { method: "POST", body: form }));
    }
  }
}

const acked = (m: Map<string, Outcome>) => [...m].filter(([, o]) => o === "acked").map(([k]) => k);

describe("the compiled binary across a SIGKILL during concurrent writes", () => {
  test("every acknowledged write survives; nothing unacknowledged is half there; blobs and rows match; no temp file", async () => {
    const fixture = baseFixture();
    const account = fixture.accounts[0]!;
    account.extensions = [{ id: EXT, name: "Crash" }];
    // Room for every write the clients manage before the kill: no refusal for a cap muddies the picture.
    account.overrides = {
      max_extensions_per_account: 10_000,
      max_secrets_per_extension: 10_000,
      max_versions_per_extension: 500,
    };
    const seed = writeFixture(dir, fixture);
    const args = ["--data-dir", dataDir, "--seed", seed, "--no-rate-limits"];
    server = await serve(built.bin, args, built.work);
    const files = [
      await bundles.make(),
      await bundles.make(
        validEntries({ entries: [{ name: "assets/noise.bin", generated: { size: 2 * 1024 * 1024, fill: "random" } }] }),
      ),
    ];

    const stop = { dead: false };
    const workers = Array.from({ length: 6 }, (_, w) => worker(server!.baseUrl, w, files, stop));
    // Kill once every kind of write has been acknowledged a few times, while more are in flight.
    const enough = () =>
      acked(sent.extensions).length >= 5 &&
      acked(sent.versions).length >= 5 &&
      [...sent.secrets.values()].flat().filter((e) => e.outcome === "acked").length >= 5;
    // …and an upload is streaming (its temp file exists), so the kill lands in the middle of one.
    const tmp = join(dataDir, "blobs", "tmp");
    const uploading = () => readdirSync(tmp).length > 0;
    await waitFor(() => enough() && uploading(), "five acknowledged writes of each kind, and an upload streaming");
    process.kill(server.pid, "SIGKILL");
    stop.dead = true;
    expect(await goneSoon(server.pid)).toBe(true);
    await Promise.all(workers);
    server = undefined;

    // Restart on the same directory (the start-up sweep runs), read everything through the API, stop cleanly.
    server = await serve(built.bin, args, built.work);
    const get = async (path: string) =>
      (
        await fetch(`${server!.baseUrl}${path}`, { headers: { authorization: `Bearer ${DEMO_KEY}` } })
      ).json() as Promise<any>;
    const extensionNames: string[] = (await get("/extensions")).extensions.map((e: { name: string }) => e.name);
    const secretNames: string[] = (await get(`/extensions/${EXT}/secrets`)).keys;
    const versionLabels: string[] = (await get(`/extensions/${EXT}/versions?include=archived`)).versions.map(
      (v: { version: string }) => v.version,
    );
    expect(await server.stop()).toBe(0);
    server = undefined;

    // Extensions: every acknowledged one is there; anything there was sent (acked, or its answer lost).
    for (const name of acked(sent.extensions)) expect(extensionNames).toContain(name);
    for (const name of extensionNames.filter((n) => n !== "Crash"))
      expect(["acked", "unknown"]).toContain(sent.extensions.get(name)!);

    // Versions: the same, and each row has its bundle file and each bundle file its row.
    for (const label of acked(sent.versions)) expect(versionLabels).toContain(label);
    for (const label of versionLabels) expect(["acked", "unknown"]).toContain(sent.versions.get(label)!);
    const db = new Database(join(dataDir, "ext.sqlite"), { readonly: true });
    try {
      expect(db.query<{ integrity_check: string }, []>("PRAGMA integrity_check").get()!.integrity_check).toBe("ok");
      const blobIds = db
        .query<{ id: string }, []>("SELECT bundle_blob_id AS id FROM versions")
        .all()
        .map((r) => r.id);
      expect(blobIds.length).toBe(versionLabels.length);
      expect(readdirSync(join(dataDir, "blobs", "objects")).sort()).toEqual([...blobIds].sort());
      expect(readdirSync(join(dataDir, "blobs", "tmp"))).toEqual([]);

      // Secrets: every name with an acknowledged PUT is there and decrypts to its last acknowledged value
      // or to a later value whose answer was lost; a name never acknowledged is absent or holds a sent value.
      const cipher = createSecretCipher(readFileSync(join(dataDir, SECRETS_KEY_FILE)));
      const rows = db
        .query<{ name: string; ciphertext: Uint8Array; iv: Uint8Array }, [string]>(
          "SELECT name, ciphertext, iv FROM secrets WHERE extension_id = ?",
        )
        .all(EXT);
      expect(rows.map((r) => r.name).sort()).toEqual([...secretNames].sort());
      const stored = new Map(
        rows.map((r) => [
          r.name,
          cipher.open(EXT, r.name, { ciphertext: Buffer.from(r.ciphertext), iv: Buffer.from(r.iv) }),
        ]),
      );
      for (const [name, history] of sent.secrets) {
        const lastAcked = history.findLastIndex((e) => e.outcome === "acked");
        const possible = history
          .filter((e, i) => i === lastAcked || (i > lastAcked && e.outcome === "unknown"))
          .map((e) => e.value);
        if (lastAcked >= 0) expect(possible).toContain(stored.get(name)!);
        else if (stored.has(name)) expect(possible).toContain(stored.get(name)!);
      }
      for (const name of stored.keys()) expect(sent.secrets.has(name)).toBe(true);
    } finally {
      db.close();
    }
  }, 120_000);
});
