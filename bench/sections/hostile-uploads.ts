/**
 * The server's responsiveness while it refuses hostile bundles: eight gzip bombs uploaded at once to the
 * compiled emulator while a separate process (Python, so the bench's own busy event loop adds nothing)
 * sends GET /healthz one at a time on one keep-alive connection, 10 ms apart, and times each answer. A
 * blocked event loop (a synchronous parse of a huge manifest, an inflate on the main thread) delays them
 * all; the OS alone delays a lone request now and then on a shared machine, hence a percentile.
 * test/binary/bundle-memory.slow.test.ts checks what does not depend on speed: the memory bounds, and that every
 * probe is answered.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { whileProbing } from "../../scripts/lib/health-probe";
import { HOSTILE_CORPUS } from "../../scripts/lib/hostile-corpus";
import { table } from "../lib/markdown";
import { WORK_DIR } from "../lib/paths";
import type { BenchSection } from "../lib/results";
import { AUTH_HEADERS, benchFixture, startEmulator, stopEmulator } from "../lib/servers";
import { type Summary, summarize } from "../lib/stats";

const BOMBS_AT_ONCE = 8;
const P95_TARGET_MS = 50;

export interface HostileUploadsResult {
  rounds: number;
  probes: number;
  /** Answer times of GET /healthz while the bombs were being refused, in ms. */
  healthz: Summary;
}

/** The probe's answer times while `work` runs; any answer but a 200 stops the section. */
async function healthzTimes(url: string, work: () => Promise<unknown>): Promise<number[]> {
  return (await whileProbing(url, work)).map(({ status, ms }) => {
    if (status !== 200) throw new Error(`GET /healthz answered ${status} during the uploads`);
    return ms;
  });
}

export const hostileUploads: BenchSection<HostileUploadsResult> = {
  id: "hostile",
  label: "hostile uploads",
  async run({ settings, log }) {
    const bomb = join(WORK_DIR, "gzip-bomb.tar.gz");
    writeFileSync(bomb, await HOSTILE_CORPUS.find((c) => c.file === "gzip-bomb.tar.gz")!.build());
    const emu = await startEmulator({ seed: benchFixture(settings.extensionsInAccount), rateLimits: false });
    let uploads = 0;
    const upload = async () => {
      const form = new FormData();
      form.append("version", `1.0.${uploads++}`);
      form.append("bundle", Bun.file(bomb), "bundle.tar.gz");
      const res = await fetch(`${emu.url}/developer/v1/extensions/ext_bench_01/versions`, {
        method: "POST",
        headers: AUTH_HEADERS,
        body: form,
      });
      await res.arrayBuffer();
      if (res.status !== 422) throw new Error(`a gzip bomb was answered ${res.status}, not 422`);
    };
    try {
      await upload(); // the first submission loads the upload path: not measured
      const rounds = settings.quick ? 1 : 3;
      const times: number[] = [];
      for (let i = 0; i < rounds; i++)
        times.push(...(await healthzTimes(emu.url, () => Promise.all(Array.from({ length: BOMBS_AT_ONCE }, upload)))));
      const healthz = summarize(times);
      log(`  /healthz during ${BOMBS_AT_ONCE} gzip bombs: p95 ${healthz.p95} ms over ${times.length} probes`);
      return { rounds, probes: times.length, healthz };
    } finally {
      await stopEmulator(emu);
    }
  },
  render(h) {
    return [
      `## GET /healthz while ${BOMBS_AT_ONCE} gzip bombs are refused at once (compiled emulator, ${h.rounds} round(s))`,
      "",
      table(["probes", "median ms", "p95 ms", "max ms"], [[h.probes, h.healthz.median, h.healthz.p95, h.healthz.max]]),
      "",
    ];
  },
  targets(h) {
    return [
      {
        id: "hostile_healthz",
        target: `/healthz answers within ${P95_TARGET_MS} ms (p95) while ${BOMBS_AT_ONCE} gzip bombs are refused`,
        measured: h ? `p95 ${h.healthz.p95} ms over ${h.probes} probes` : "not run",
        met: h ? h.healthz.p95 <= P95_TARGET_MS : null,
      },
    ];
  },
};
