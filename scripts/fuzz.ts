/**
 * `npm run fuzz [-- --seed N] [--runs N] [--path P]`: the request fuzzer (test/fuzz/requests.slow.test.ts: every
 * developer-API and control-plane route), the fixture loader's properties (test/seed/property.test.ts:
 * random valid fixtures round-trip through an export, random invalid ones change nothing) and the loaders'
 * agreement (test/fuzz/fixtures.slow.test.ts: mutated fixtures and export directories through every loader,
 * which must agree and accept nothing the API would not have made), with many more runs
 * than `npm test` gives them, and a fresh seed unless one is given. The seed is printed first; a failure
 * prints it again with the counterexample's path, for a replay.
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
  [
    process.execPath,
    "test",
    "--timeout",
    "3600000",
    join(import.meta.dir, "../test/fuzz/requests.slow.test.ts"),
    join(import.meta.dir, "../test/seed/property.test.ts"),
    join(import.meta.dir, "../test/fuzz/fixtures.slow.test.ts"),
  ],
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
