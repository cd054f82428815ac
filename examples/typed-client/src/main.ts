/**
 * Runs the tour against an emulator: `ext exec -- bun src/main.ts bundle.tar.gz` (ext exec sets
 * EXT_BASE_URL and EXT_API_KEY). Prints what it saw as one JSON line.
 */
import { tour } from "./client";

declare const process: { env: Record<string, string | undefined>; argv: string[]; exit(code: number): never };
declare const Bun: { file(path: string): Blob };

const base = process.env.EXT_BASE_URL;
const key = process.env.EXT_API_KEY;
const bundlePath = process.argv[2];
if (!base || !key || !bundlePath) {
  console.error("usage: EXT_BASE_URL=… EXT_API_KEY=… bun src/main.ts BUNDLE.tar.gz (or run it under ext exec)");
  process.exit(2);
}
console.log(JSON.stringify(await tour(new URL(base).origin, key, Bun.file(bundlePath))));
