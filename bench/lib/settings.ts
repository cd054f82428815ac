/** How long and how often each measurement runs. The full run is what the committed results use (< 5 min). */

export interface Settings {
  quick: boolean;
  /** Timed cold starts per configuration (after one untimed run that warms the page cache). */
  coldRuns: number;
  /** Prism's cold starts stop early past this budget (it is a Node app that takes seconds to start). */
  prismColdBudgetMs: number;
  loadDurationS: number;
  warmupS: number;
  extensionsInAccount: number;
  /** Requests per batch of the memory row (RSS is read after each batch). */
  memoryBatch: number;
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
}

export function settingsFor(quick: boolean): Settings {
  return quick
    ? { quick, coldRuns: 5, prismColdBudgetMs: 20_000, loadDurationS: 2, warmupS: 1, extensionsInAccount: 10, memoryBatch: 2_000, memoryBatches: 3, smallUploadDurationS: 2, smallUploadMax: 50, largeBundleMB: 49.9, largeUploadRuns: 1 }
    : { quick, coldRuns: 20, prismColdBudgetMs: 90_000, loadDurationS: 10, warmupS: 2, extensionsInAccount: 10, memoryBatch: 10_000, memoryBatches: 8, smallUploadDurationS: 5, smallUploadMax: 250, largeBundleMB: 49.9, largeUploadRuns: 5 };
}
