/**
 * The memory bounds of docs/behaviour.md "Bundle safety", measured on the compiled binary: peak RSS growth
 * (VmHWM, reset through /proc/PID/clear_refs before each measure) at most 64 MB for any single upload of the
 * hostile corpus and at most 128 MB for 8 at once (eight gzip bombs included), while /healthz keeps answering
 * (probed from a process of its own). How fast it answers meanwhile is a bench row (bench/sections/hostile-uploads.ts),
 * not a test: on a shared machine a time bound fails for reasons that are not the server's.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { whileProbing } from "../../scripts/lib/health-probe";
import { HOSTILE_CORPUS } from "../../scripts/lib/hostile-corpus";
import { ARCHIVES_TIMEOUT_MS, corpusArchives } from "../helpers/build-cache";
import { BUILD_TIMEOUT_MS, type Built, buildBinary, type ServedBinary, serve } from "./helpers";

const KEY = "ext_test_key_memory_0123456789abcdefgh";
const MB = 1024;
let built: Built;
let server: ServedBinary;
const files: string[] = [];

beforeAll(async () => {
  built = buildBinary();
  writeFileSync(
    join(built.work, "fixture.json"),
    JSON.stringify({
      accounts: [
        {
          id: "acc_mem",
          name: "Mem",
          apiKeys: [{ name: "ci", key: KEY, scopes: ["*"] }],
          extensions: [{ id: "ext_mem", name: "Mem" }],
        },
      ],
    }),
  );
  server = await serve(built.bin, ["--memory", "--seed", "fixture.json", "--no-rate-limits"], built.work);
  files.push(...(await corpusArchives(HOSTILE_CORPUS)).values());
}, BUILD_TIMEOUT_MS + ARCHIVES_TIMEOUT_MS);
afterAll(async () => {
  await server?.stop();
  built?.cleanup();
});

const statusKb = (field: string) =>
  Number(readFileSync(`/proc/${server.pid}/status`, "utf8").match(new RegExp(`^${field}:\\s+(\\d+)`, "m"))![1]);

/** RSS now, with the peak (VmHWM) reset to it. */
function resetPeak(): number {
  writeFileSync(`/proc/${server.pid}/clear_refs`, "5");
  return statusKb("VmRSS");
}

let uploads = 0;
async function upload(file: string): Promise<number> {
  const body = new FormData();
  body.append("version", `1.0.${uploads++}`); // one accepted by mistake must not turn the rest into 409s
  body.append("bundle", Bun.file(file), "bundle.tar.gz");
  const res = await fetch(`${server.baseUrl}/extensions/ext_mem/versions`, {
    method: "POST",
    headers: { authorization: `Bearer ${KEY}` },
    body,
  });
  await res.arrayBuffer();
  return res.status;
}

describe("bundle inspection memory on the compiled binary", () => {
  test("any single corpus upload: peak RSS growth at most 64 MB, a 422", async () => {
    await upload(files[0]!); // the first request compiles the route: not measured
    const wrong: { file: string; status: number; growthMb: number }[] = [];
    for (const file of files) {
      const before = resetPeak();
      const status = await upload(file);
      const growthMb = Math.round((statusKb("VmHWM") - before) / MB);
      if (status !== 422 || growthMb > 64)
        wrong.push({ file: file.slice(file.lastIndexOf("/") + 1), status, growthMb });
    }
    expect(wrong).toEqual([]);
  }, 120_000);

  test("8 corpus uploads at once: peak RSS growth at most 128 MB; /healthz answers throughout", async () => {
    // The heaviest at once: eight gzip bombs, then the eight next heaviest kinds, then the rest, 8 at a time.
    const bomb = files.find((f) => f.endsWith("gzip-bomb.tar.gz"))!;
    const heavy = files.filter((f) => f !== bomb && /huge|manifest/.test(f));
    const rest = files.filter((f) => f !== bomb && !heavy.includes(f));
    const batches = [
      Array(8).fill(bomb),
      heavy.slice(0, 8),
      ...Array.from({ length: Math.ceil(rest.length / 8) }, (_, i) => rest.slice(i * 8, i * 8 + 8)),
    ];
    const all: { status: number; ms: number }[] = [];
    for (const [i, batch] of batches.entries()) {
      const before = resetPeak();
      const probes = await whileProbing(server.url, async () =>
        expect(await Promise.all(batch.map(upload))).toEqual(batch.map(() => 422)),
      );
      const growthMb = (statusKb("VmHWM") - before) / MB;
      expect({ batch: i, growthMb: Math.round(growthMb), over128Mb: growthMb > 128 }).toEqual({
        batch: i,
        growthMb: Math.round(growthMb),
        over128Mb: false,
      });
      all.push(...probes);
    }
    // Every probe answered, each batch's first one included (whileProbing waits for it before the uploads).
    expect(all.length).toBeGreaterThanOrEqual(batches.length);
    expect(all.filter((p) => p.status !== 200)).toEqual([]);
  }, 180_000);
});
