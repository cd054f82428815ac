/**
 * Writes the sample bundles of scripts/lib/samples.ts to fixtures/bundles/ (a valid one and one of each
 * invalid kind; see fixtures/bundles/README.md), and docs/manifest.schema.json from the manifest schema.
 * The .tar.gz files are generated, never committed: `npm run fixtures:bundles`.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { manifestJsonSchema } from "../server/bundles/manifest-schema";
import { SAMPLE_BUNDLES } from "./lib/samples";

const root = resolve(import.meta.dir, "..");
const out = join(root, "fixtures", "bundles");
mkdirSync(out, { recursive: true });
for (const sample of SAMPLE_BUNDLES) {
  await sample.build(join(out, sample.file));
  console.log(`${sample.file.padEnd(34)} ${sample.description}`);
}
writeFileSync(join(root, "docs", "manifest.schema.json"), `${JSON.stringify(manifestJsonSchema(), null, 2)}\n`);
console.log(`wrote ${SAMPLE_BUNDLES.length} bundles to ${out} and docs/manifest.schema.json`);
