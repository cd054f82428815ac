/**
 * `npm run build` → dist/ext: one self-contained executable (server + CLI) with the migrations, the docs UI
 * and the demo fixture embedded. `npm run release` builds the same for every platform (scripts/release.ts).
 */
import { compileBinary, prepareDashboard } from "./lib/compile";

// `--outfile PATH` builds elsewhere (the binary tests build their own copy, so parallel runs never share one).
const at = process.argv.indexOf("--outfile");
const outfile = at > 0 && process.argv[at + 1] ? process.argv[at + 1]! : "dist/ext";
try {
  await prepareDashboard();
  compileBinary(outfile);
} catch (e) {
  console.error((e as Error).message);
  process.exit(1);
}
console.log(`built ${outfile}`);
