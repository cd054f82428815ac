/**
 * `npm run fuzz [-- --seed N] [--runs N] [--path P]`: the request fuzzer (test/fuzz/requests.test.ts) with
 * many more runs per route than `npm test` gives it, and a fresh seed unless one is given. The seed is
 * printed first; a failure prints it again with the counterexample's path, for a replay.
 */

import { join } from "node:path";
import { parseArgs } from "node:util";

const { values } = parseArgs({
  options: { seed: { type: "string" }, runs: { type: "string" }, path: { type: "string" } },
});
const seed = values.seed ?? String(Math.floor(Math.random() * 2 ** 31));
const runs = values.runs ?? "300";
console.log(`fuzz: seed ${seed}, ${runs} runs per route (replay: npm run fuzz -- --seed ${seed} --runs ${runs})`);
const proc = Bun.spawn(
  [process.execPath, "test", "--timeout", "3600000", join(import.meta.dir, "../test/fuzz/requests.test.ts")],
  {
    env: {
      ...process.env,
      EXT_FUZZ_SEED: seed,
      EXT_FUZZ_RUNS: runs,
      ...(values.path ? { EXT_FUZZ_PATH: values.path } : {}),
    },
    stdout: "inherit",
    stderr: "inherit",
  },
);
process.exit(await proc.exited);
