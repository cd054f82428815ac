// Runs autocannon (the load generator) under Node and prints one JSON line. It records every response
// time itself because autocannon's own histograms hold whole milliseconds, and sub-millisecond latencies
// (a local server at one connection) would all read "0 ms". Only 2xx responses count towards latency.
// Usage: node bench/autocannon-driver.mjs '<json options for autocannon>'
import { createRequire } from "node:module";

const require = createRequire(import.meta.url);
const autocannon = require("./node_modules/autocannon");

const opts = JSON.parse(process.argv[2]);
let times = new Float64Array(1 << 16);
let n = 0;

const instance = autocannon({ ...opts, renderProgressBar: false, renderResultsTable: false }, (err, result) => {
  if (err) {
    console.error(err.message);
    process.exit(1);
  }
  const sorted = times.subarray(0, n).sort();
  const pct = (p) => (n === 0 ? null : sorted[Math.min(n, Math.max(1, Math.ceil((p / 100) * n))) - 1]);
  let sum = 0;
  for (let i = 0; i < n; i++) sum += sorted[i];
  console.log(
    JSON.stringify({
      duration: result.duration,
      requests: result.requests.total,
      non2xx: result.non2xx,
      errors: result.errors,
      timeouts: result.timeouts,
      latencyMs: { p50: pct(50), p99: pct(99), avg: n ? sum / n : null, max: n ? sorted[n - 1] : null },
    }),
  );
});

instance.on("response", (_client, statusCode, _bytes, responseTime) => {
  if (statusCode < 200 || statusCode > 299) return;
  if (n === times.length) {
    const bigger = new Float64Array(times.length * 2);
    bigger.set(times);
    times = bigger;
  }
  times[n++] = responseTime;
});
