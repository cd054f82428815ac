/**
 * `ext seed --data-dir` beside a running `ext serve` on the same data directory (documented as supported):
 * two real processes of the compiled binary, a seed in a loop while the control plane and the developer API
 * keep writing. No request may fail with a 500 (`database is locked`), every seed must succeed, and the
 * server's next read must show what the seed wrote, even though the answer before it was cached.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { mkdtempSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { BUILD_TIMEOUT_MS, type Built, buildBinary, cleanEnv, serve } from "./helpers";

const DEMO_KEY = "ext_demo_0123456789abcdefghijklmnopqrstuv";
const ROUNDS = 6;

let built: Built;
beforeAll(() => {
  built = buildBinary();
}, BUILD_TIMEOUT_MS);
afterAll(() => built?.cleanup());

const auth = { authorization: `Bearer ${DEMO_KEY}` };

async function listedIds(baseUrl: string): Promise<string[]> {
  const res = await fetch(`${baseUrl}/extensions`, { headers: auth });
  expect(res.status).toBe(200);
  return ((await res.json()) as { extensions: { id: string }[] }).extensions.map((e) => e.id);
}

test(
  "seeds beside a server under concurrent writes: no 500, every seed lands, no stale read",
  async () => {
    const dir = mkdtempSync(join(built.work, "beside-"));
    const dataDir = join(dir, "data");
    const s = await serve(built.bin, ["--data-dir", dataDir, "--seed", "demo", "--no-rate-limits"], built.work);
    try {
      const created = await fetch(`${s.baseUrl}/extensions`, {
        method: "POST",
        headers: { ...auth, "content-type": "application/json" },
        body: JSON.stringify({ name: "Writes Here" }),
      });
      expect(created.status).toBe(201);
      const target = ((await created.json()) as { extension: { id: string } }).extension.id;

      const statuses: number[] = [];
      let writes = 0;
      for (let round = 0; round < ROUNDS; round++) {
        // Cached before the seed: the read after it must not be served from this.
        expect(await listedIds(s.baseUrl)).not.toContain(`ext_seeded_${round}`);
        const fixture = join(dir, `round-${round}.json`);
        writeFileSync(
          fixture,
          JSON.stringify({
            accounts: [
              {
                id: "acc_demo",
                name: "Demo Developer",
                extensions: [{ id: `ext_seeded_${round}`, name: `Seeded ${round}`, versions: [{ version: "1.0.0" }] }],
              },
              { id: `acc_round_${round}`, name: `Round ${round}`, apiKeys: [{ name: "ci", scopes: ["*"] }] },
            ],
          }),
        );
        const seed = Bun.spawn([built.bin, "seed", fixture, "--data-dir", dataDir], {
          cwd: built.work,
          env: cleanEnv(),
          stdout: "pipe",
          stderr: "pipe",
          stdin: "ignore",
        });
        const stderr = new Response(seed.stderr).text();
        // Writes through both faces of the server for as long as the seed runs (and at least a few).
        for (let n = 0; seed.exitCode === null || n < 4; n++) {
          const id = `acc_cp_${round}_${n}`;
          const [control, developer] = await Promise.all([
            fetch(`${s.adminUrl}/seed`, {
              method: "POST",
              headers: { "content-type": "application/json", authorization: `Bearer ${s.adminToken}` },
              body: JSON.stringify({ accounts: [{ id, name: id, apiKeys: [{ name: "k", scopes: ["*"] }] }] }),
            }),
            fetch(`${s.baseUrl}/extensions/${target}/secrets/ROUND`, {
              method: "PUT",
              headers: { ...auth, "content-type": "application/json" },
              body: JSON.stringify({ value: `${round}-${n}` }),
            }),
          ]);
          statuses.push(control.status, developer.status);
          writes++;
        }
        expect({ round, code: await seed.exited, stderr: await stderr }).toEqual({ round, code: 0, stderr: "" });
        expect(await listedIds(s.baseUrl)).toContain(`ext_seeded_${round}`);
      }
      expect(writes).toBeGreaterThanOrEqual(ROUNDS * 4);
      expect(statuses.filter((status) => status >= 500)).toEqual([]);
      expect(new Set(statuses)).toEqual(new Set([200, 204]));
    } finally {
      await s.stop();
    }
  },
  BUILD_TIMEOUT_MS,
);
