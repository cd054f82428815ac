/** How long and how often each measurement runs. The full run is what the committed results use. */

export interface Settings {
  quick: boolean;
  /** Timed cold starts per configuration (after one untimed run that warms the page cache). */
  coldRuns: number;
  /** Prism's cold starts (a Node app that takes seconds to start), stopped early past the budget. */
  prismColdRuns: number;
  prismColdBudgetMs: number;
  /** Prism under load beside the list row (a peer for scale). */
  prismLoad: boolean;
  /** The list at one connection. */
  loadDurationS: number;
  /** Each hot route, ours and the ceiling's, at 64 connections. */
  routeDurationS: number;
  warmupS: number;
  extensionsInAccount: number;
  /** Seconds of load per batch of the memory row (RSS is read after each batch). */
  memoryBatchS: number;
  memoryBatches: number;
  /** 1 MB submissions: each concurrency runs for this long, and at most `smallUploadMax` submissions. */
  smallUploadDurationS: number;
  smallUploadMax: number;
  /**
   * Size of the large bundle (MB of incompressible content): the "50 MB bundle", as close to it as a
   * valid bundle can be — 50 MB is also the archive cap, and tar headers and gzip framing add ~20 KB.
   */
  largeBundleMB: number;
  /** Large uploads per size, each on a fresh server: the row reports the median time and the largest peak. */
  largeUploadRuns: number;
  /** Test-loop rows: starts (each a fresh emulator) and resets (on one emulator). */
  testLoopStarts: number;
  testLoopResets: number;
}

export function settingsFor(quick: boolean): Settings {
  return quick
    ? {
        quick,
        coldRuns: 5,
        prismColdRuns: 1,
        prismColdBudgetMs: 20_000,
        prismLoad: false,
        loadDurationS: 2,
        routeDurationS: 2,
        warmupS: 1,
        extensionsInAccount: 10,
        memoryBatchS: 1,
        memoryBatches: 3,
        smallUploadDurationS: 2,
        smallUploadMax: 50,
        largeBundleMB: 49.9,
        largeUploadRuns: 1,
        testLoopStarts: 5,
        testLoopResets: 50,
      }
    : {
        quick,
        coldRuns: 20,
        prismColdRuns: 5,
        prismColdBudgetMs: 60_000,
        prismLoad: true,
        loadDurationS: 5,
        routeDurationS: 6,
        warmupS: 2,
        extensionsInAccount: 10,
        memoryBatchS: 2,
        memoryBatches: 8,
        smallUploadDurationS: 5,
        smallUploadMax: 250,
        largeBundleMB: 49.9,
        largeUploadRuns: 5,
        testLoopStarts: 20,
        testLoopResets: 200,
      };
}
