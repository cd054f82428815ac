/**
 * POST /developer/v1/extensions/:id/versions. Submissions per second of a 1 MB valid bundle (one
 * client, then four), and one large valid bundle: wall time from the first byte sent to the 202, MB/s, and
 * the server's peak RSS growth while it streams, inspects and stores it. Each large upload runs on a fresh
 * server after one small warm-up submission, with the kernel's peak RSS mark reset just before, and RSS
 * also sampled every 10 ms, so the growth is the upload's and not earlier load's; it is repeated
 * (settings.largeUploadRuns) and the row gives the median time and the largest growth.
 */
import { type BenchBundle, benchBundle } from "../lib/bundles";
import { table } from "../lib/markdown";
import { MB, peakRssBytes, resetPeakRss, rssBytes, sampleRss } from "../lib/proc";
import type { BenchSection, TargetCheck } from "../lib/results";
import { AUTH_HEADERS, benchFixture, type Emulator, startEmulator, stopEmulator } from "../lib/servers";
import type { Settings } from "../lib/settings";
import { round, summarize } from "../lib/stats";

const EXTENSION_ID = "ext_bench_01";
export const SMALL_CONCURRENCIES = [1, 4] as const;

export interface SmallUploadRow {
  connections: number;
  submissions: number;
  seconds: number;
  perSecond: number;
}

export interface LargeUploadRun {
  seconds: number;
  baselineRssMB: number;
  peakRssGrowthMB: number;
}

export interface LargeUpload {
  bundleBytes: number;
  sounds: number;
  /** Median over the runs (one run is at the mercy of whatever else the 2 cores did in that half second). */
  seconds: number;
  mbPerSecond: number;
  baselineRssMB: number;
  /** The largest over the runs: a memory bound is judged by its worst case. */
  peakRssGrowthMB: number;
  /** How the peak was read: the kernel's VmHWM after a reset, or 10 ms sampling only. */
  peakMethod: string;
  runs: LargeUploadRun[];
}

export interface UploadResult {
  smallBundleBytes: number;
  small: SmallUploadRow[];
  large: LargeUpload;
  /**
   * The same measurement with a bundle half the size: if the server buffered the bundle, its peak growth
   * would halve too; a streaming server's stays about the same (its buffers do not depend on the size).
   */
  halfSizeControl: LargeUpload;
}

async function submit(emu: Emulator, bundle: BenchBundle, version: string): Promise<void> {
  const form = new FormData();
  form.append("version", version);
  form.append("changelog", "Benchmark submission");
  form.append("bundle", Bun.file(bundle.file, { type: "application/gzip" }), "bundle.tar.gz");
  const res = await fetch(`${emu.url}/developer/v1/extensions/${EXTENSION_ID}/versions`, {
    method: "POST",
    headers: AUTH_HEADERS,
    body: form,
  });
  const text = await res.text();
  if (res.status !== 202) throw new Error(`version ${version}: expected 202, got ${res.status} ${text.slice(0, 400)}`);
}

async function smallRows(
  settings: Settings,
  bundle: BenchBundle,
  log: (line: string) => void,
): Promise<SmallUploadRow[]> {
  const emu = await startEmulator({ seed: benchFixture(settings.extensionsInAccount), rateLimits: false });
  try {
    await submit(emu, bundle, "0.0.0-warmup");
    const rows: SmallUploadRow[] = [];
    for (const connections of SMALL_CONCURRENCIES) {
      let next = 0;
      let done = 0;
      const t0 = performance.now();
      const deadline = t0 + settings.smallUploadDurationS * 1000;
      const worker = async () => {
        while (performance.now() < deadline && next < settings.smallUploadMax) {
          await submit(emu, bundle, `${connections}.0.${next++}`);
          done++;
        }
      };
      await Promise.all(Array.from({ length: connections }, worker));
      const seconds = (performance.now() - t0) / 1000;
      rows.push({ connections, submissions: done, seconds: round(seconds, 2), perSecond: round(done / seconds) });
      log(`  1 MB bundle, ${connections} client(s): ${rows.at(-1)!.perSecond} submissions/s`);
    }
    return rows;
  } finally {
    await stopEmulator(emu);
  }
}

/** One large upload on a fresh server, after one small warm-up submission, with the peak RSS mark reset. */
async function largeRun(
  settings: Settings,
  bundle: BenchBundle,
  small: BenchBundle,
): Promise<LargeUploadRun & { hwmReset: boolean }> {
  const emu = await startEmulator({ seed: benchFixture(settings.extensionsInAccount), rateLimits: false });
  try {
    await submit(emu, small, "0.0.0-warmup");
    await Bun.sleep(500);
    const hwmReset = resetPeakRss(emu.pid);
    const baseline = rssBytes(emu.pid);
    const sampler = sampleRss(emu.pid, 10);
    const t0 = performance.now();
    await submit(emu, bundle, "1.0.0");
    const seconds = (performance.now() - t0) / 1000;
    const sampled = sampler.stop();
    const peak = hwmReset ? Math.max(sampled, peakRssBytes(emu.pid)) : sampled;
    return {
      seconds: round(seconds, 3),
      baselineRssMB: round(baseline / MB),
      peakRssGrowthMB: round((peak - baseline) / MB),
      hwmReset,
    };
  } finally {
    await stopEmulator(emu);
  }
}

async function largeRow(
  settings: Settings,
  sizeMB: number,
  small: BenchBundle,
  log: (line: string) => void,
): Promise<LargeUpload> {
  const bundle = await benchBundle(sizeMB);
  const runs: LargeUploadRun[] = [];
  let hwmReset = true;
  for (let i = 0; i < settings.largeUploadRuns; i++) {
    const { hwmReset: reset, ...run } = await largeRun(settings, bundle, small);
    hwmReset &&= reset;
    runs.push(run);
  }
  const seconds = summarize(runs.map((r) => r.seconds)).median;
  const result: LargeUpload = {
    bundleBytes: bundle.bytes,
    sounds: bundle.sounds,
    seconds,
    mbPerSecond: round(bundle.bytes / MB / seconds),
    baselineRssMB: summarize(runs.map((r) => r.baselineRssMB)).median,
    peakRssGrowthMB: Math.max(...runs.map((r) => r.peakRssGrowthMB)),
    peakMethod: hwmReset
      ? "VmHWM reset via /proc/<pid>/clear_refs, and VmRSS sampled every 10 ms"
      : "VmRSS sampled every 10 ms",
    runs,
  };
  log(
    `  ${round(bundle.bytes / MB)} MB bundle, ${runs.length} run(s): median ${result.seconds} s, ${result.mbPerSecond} MB/s; peak RSS +${result.peakRssGrowthMB} MB at most ` +
      `(runs: ${runs.map((r) => `${r.seconds} s +${r.peakRssGrowthMB} MB`).join(", ")})`,
  );
  return result;
}

export const upload: BenchSection<UploadResult> = {
  id: "upload",
  label: "version uploads",
  async run({ settings, log }) {
    const small = await benchBundle(1);
    const rows = await smallRows(settings, small, log);
    const large = await largeRow(settings, settings.largeBundleMB, small, log);
    const halfSizeControl = await largeRow(settings, settings.largeBundleMB / 2, small, log);
    return { smallBundleBytes: small.bytes, small: rows, large, halfSizeControl };
  },
  render(u) {
    const out = [
      "## POST /developer/v1/extensions/:id/versions (valid bundles, random bytes so gzip cannot shrink them)",
      "",
    ];
    out.push(
      table(
        ["bundle", "clients", "submissions", "seconds", "submissions/s"],
        u.small.map((row) => [
          `${round(u.smallBundleBytes / 1024 / 1024, 1)} MB`,
          row.connections,
          row.submissions,
          row.seconds,
          row.perSecond,
        ]),
      ),
      "",
    );
    const large = (l: LargeUpload, label: string) => [
      `${round(l.bundleBytes / 1024 / 1024, 1)} MB, ${l.sounds} FLAC sounds + assets (${label})`,
      l.seconds,
      l.mbPerSecond,
      `${l.baselineRssMB} MB`,
      `+${l.peakRssGrowthMB} MB`,
    ];
    out.push(
      table(
        ["bundle", "seconds (send → 202)", "MB/s", "server RSS before", "peak RSS growth"],
        [large(u.large, "the target row"), large(u.halfSizeControl, "control: half the size")],
      ),
      "",
      `Seconds: the median of ${u.large.runs.length} run(s) of each size (${u.large.runs.map((r) => `${r.seconds} s`).join(", ")} for the target row); peak RSS growth: the largest of them (${u.large.runs.map((r) => `+${r.peakRssGrowthMB} MB`).join(", ")}). ` +
        `Peak: ${u.large.peakMethod}. Each large upload runs on a fresh server after one 1 MB warm-up submission. The half-size control tells streaming from buffering: a server that held the bundle would grow about half as much with half the bundle.`,
      "",
    );
    return out;
  },
  targets(u) {
    const l = u?.large;
    const checks: TargetCheck[] = [
      {
        id: "upload_speed",
        target: "first 50 MB upload on a fresh server ≥ 200 MB/s",
        measured: l ? `${l.mbPerSecond} MB/s` : "not run",
        met: l ? l.mbPerSecond >= 200 : null,
      },
      {
        id: "upload_rss",
        target: "peak RSS growth during it < 32 MB",
        measured: l ? `+${l.peakRssGrowthMB} MB` : "not run",
        met: l ? l.peakRssGrowthMB < 32 : null,
      },
    ];
    return checks;
  },
};
