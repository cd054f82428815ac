/** Where the bench finds the project, its tools and its scratch space (all relative to this file, so any cwd works). */
import { join, resolve } from "node:path";

export const ROOT = resolve(import.meta.dir, "..", "..");
export const BENCH_DIR = join(ROOT, "bench");
/** Scratch space (gitignored): temp data directories, generated bundles, the fetched OpenAPI document. */
export const WORK_DIR = join(BENCH_DIR, ".work");
export const RESULTS_DIR = join(BENCH_DIR, "results");

/**
 * The compiled emulator, built by scripts/build.ts; EXT_BENCH_BINARY names another build instead (a variant
 * with or without a trick, for a side-by-side figure), which the bench then does not rebuild.
 */
export const GIVEN_BINARY = process.env.EXT_BENCH_BINARY ? resolve(process.env.EXT_BENCH_BINARY) : null;
export const EXT_BINARY = GIVEN_BINARY ?? join(ROOT, "dist", "ext");
/** The project's own Bun (npm package `bun`); never a global one. */
export const BUN = join(ROOT, "node_modules", ".bin", "bun");
export const DEMO_FIXTURE = join(ROOT, "fixtures", "demo.json");

const BENCH_MODULES = join(BENCH_DIR, "node_modules");
export const PRISM_CLI = join(BENCH_MODULES, "@stoplight", "prism-cli", "dist", "index.js");
export const BENCH_PACKAGE = (name: string) => join(BENCH_MODULES, ...name.split("/"), "package.json");
