/**
 * Run by npm before `npm test` and `npm run test:fast` (package.json's pretest scripts): the shared binary
 * (./binary-cache.ts) is built here, before any test's time limit has started. Without it the first test to
 * run `ext` built it inside its own limit, and on a loaded 2-core machine that build alone has taken 28 s of a
 * test's 30. A file run by itself (`bun test FILE`) still builds it on first use.
 */
import { sharedBinary } from "./binary-cache";
import { BUILD_TIMEOUT_MS } from "./helpers";

const started = performance.now();
const bin = sharedBinary(BUILD_TIMEOUT_MS);
console.log(`the test binary: ${bin} (${Math.round(performance.now() - started)} ms)`);
