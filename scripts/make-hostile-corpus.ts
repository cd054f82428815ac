/**
 * Writes the hostile-archive corpus of scripts/lib/hostile-corpus.ts (and the real-world shapes that must
 * stay accepted) to a folder, fixtures/hostile/ unless one is given: `npm run fixtures:hostile [-- DIR]`.
 * Generated, never committed; the tests build the same archives in memory.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { ACCEPTED_CORPUS, HOSTILE_CORPUS } from "./lib/hostile-corpus";

const out = resolve(process.argv[2] ?? join(import.meta.dir, "..", "fixtures", "hostile"));
mkdirSync(out, { recursive: true });
for (const c of [...HOSTILE_CORPUS, ...ACCEPTED_CORPUS]) {
  writeFileSync(join(out, c.file), await c.build());
  console.log(`${c.refused ? "refused " : "accepted"} ${c.file.padEnd(36)} ${c.description}`);
}
console.log(`wrote ${HOSTILE_CORPUS.length + ACCEPTED_CORPUS.length} archives to ${out}`);
