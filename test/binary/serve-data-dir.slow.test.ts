/**
 * What `ext serve` leaves in the project, from the compiled binary: a data directory it creates carries a
 * `.gitignore` of `*` (an existing directory is left as it is), and a clean exit removes `ext.pid`.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { BUILD_TIMEOUT_MS, type Built, buildBinary, serve } from "./helpers";

let built: Built;

beforeAll(() => {
  built = buildBinary();
}, BUILD_TIMEOUT_MS);
afterAll(() => built?.cleanup());

describe("ext serve and its data directory", () => {
  test("a data directory it creates gets a .gitignore of `*`; a clean exit removes ext.pid", async () => {
    const project = join(built.work, "project");
    mkdirSync(project);
    const server = await serve(built.bin, [], project);
    const dataDir = join(project, ".ext-data");
    expect(readFileSync(join(dataDir, ".gitignore"), "utf8")).toBe("*\n");
    expect(readFileSync(join(dataDir, "ext.pid"), "utf8").trim()).toBe(String(server.pid));
    expect(await server.stop()).toBe(0);
    expect(existsSync(join(dataDir, "ext.pid"))).toBe(false);
    // The next start finds its directory as it left it.
    const again = await serve(built.bin, [], project);
    expect(await again.stop()).toBe(0);
    expect(readFileSync(join(dataDir, ".gitignore"), "utf8")).toBe("*\n");
    // A directory that already existed is the user's: it is not given one.
    const mine = join(built.work, "mine");
    mkdirSync(mine);
    const other = await serve(built.bin, ["--data-dir", mine], built.work);
    expect(await other.stop()).toBe(0);
    expect(existsSync(join(mine, ".gitignore"))).toBe(false);
    expect(existsSync(join(mine, "ext.sqlite"))).toBe(true);
  });
});
