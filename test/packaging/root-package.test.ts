/**
 * The checkout's own package.json is not what users install (that is generated into dist/npm/): it stays
 * private and has no `bin`, since `npm install /path/to/checkout` would otherwise chmod its target (a file
 * in the checkout) to 755.
 */
import { expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import rootPkg from "../../package.json" with { type: "json" };

const ROOT = resolve(import.meta.dir, "../..");

test("the root package is private and has no bin", () => {
  expect(rootPkg.private).toBe(true);
  expect("bin" in rootPkg).toBe(false);
});

test("the main package's template names the launcher and both module entries, typed", () => {
  const main = JSON.parse(readFileSync(resolve(ROOT, "packaging/npm/package.json"), "utf8"));
  expect(main.name).toBe("ext-emulator");
  expect(main.bin).toEqual({ ext: "bin/ext.cjs" });
  expect(main.exports["."]).toEqual({
    import: { types: "./index.d.mts", default: "./index.mjs" },
    require: { types: "./index.d.cts", default: "./index.cjs" },
  });
  expect(main.engines.node).toBe(">=20");
});
