/**
 * `ext image DIR`: the container build context of the binary that runs it, as a user of the npm package writes
 * it (npm run image builds the same one, and CI builds and runs that image: packaging/image/check.sh). Here:
 * what the context holds, with the modes the image's user needs, and the refusals. That no other user can
 * write in it, under any umask: made-folders.slow.test.ts.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { existsSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import pkg from "../../package.json" with { type: "json" };
import { BUILD_TIMEOUT_MS, type Built, buildBinary, run } from "./helpers";

let built: Built;
beforeAll(() => {
  built = buildBinary();
}, BUILD_TIMEOUT_MS);
afterAll(() => built?.cleanup());

const mode = (path: string) => lstatSync(path).mode & 0o7777;

test.skipIf(process.platform !== "linux")(
  "writes a Dockerfile labelled with this binary's version, the binary, its C library, the image's user and /tmp",
  async () => {
    const cwd = mkdtempSync(join(built.work, "image-"));
    const r = await run(built.bin, ["image", "ctx"], { cwd });
    expect({ code: r.code, stderr: r.stderr }).toEqual({ code: 0, stderr: "" });
    const dir = join(cwd, "ctx");
    const dockerfile = readFileSync(join(dir, "Dockerfile"), "utf8");
    expect(dockerfile).toContain(`ARG VERSION=${pkg.version}\n`);
    expect(dockerfile).toMatch(/^ARG COMMIT=[0-9a-f]{7,}/m);
    expect(dockerfile).toContain("FROM scratch");
    expect(readFileSync(join(dir, "rootfs/ext")).equals(readFileSync(built.bin))).toBe(true);
    expect(mode(join(dir, "rootfs/ext"))).toBe(0o755);
    expect(readdirSync(join(dir, "rootfs")).sort()).toEqual(expect.arrayContaining(["etc", "ext"]));
    const libc = readdirSync(join(dir, "rootfs/lib"), { recursive: true }).map(String);
    expect(libc.some((f) => f.endsWith("libc.so.6"))).toBe(true);
    expect(readFileSync(join(dir, "rootfs/etc/passwd"), "utf8")).toContain("ext:x:10001:10001:");
    expect(mode(join(dir, "rootfs/etc/passwd"))).toBe(0o644);
    // /tmp is an entry of tmp.tar (the Containerfile ADDs it), root's and 1777 in the image, no folder of the context.
    expect(existsSync(join(dir, "rootfs/tmp"))).toBe(false);
    const listed = Bun.spawnSync(["tar", "-tvf", join(dir, "tmp.tar"), "--numeric-owner"]).stdout.toString();
    expect(listed).toMatch(/^drwxrwxrwt 0\/0 +0 [^\n]* tmp\/\n$/);
    expect(dockerfile).toContain("\nADD tmp.tar /\n");
    expect(mode(join(dir, "data"))).toBe(0o700);
    expect(r.stdout).toContain(`docker build -t ext-emulator:${pkg.version} ctx`);
  },
);

test.skipIf(process.platform !== "linux")("a folder with anything in it is refused, and left as it was", async () => {
  const cwd = mkdtempSync(join(built.work, "image-"));
  mkdirSync(join(cwd, "ctx"));
  writeFileSync(join(cwd, "ctx", "mine.txt"), "keep");
  const r = await run(built.bin, ["image", "ctx"], { cwd });
  expect(r.code).toBe(2);
  expect(r.stderr).toContain("ctx is not empty");
  expect(readdirSync(join(cwd, "ctx"))).toEqual(["mine.txt"]);
});

test("from a checkout, under Bun itself, it says to run the installed binary", async () => {
  const cwd = mkdtempSync(join(built.work, "image-"));
  const root = join(import.meta.dir, "../..");
  const r = await run(join(root, "node_modules/.bin/bun"), [join(root, "tools/cli/main.ts"), "image", "ctx"], { cwd });
  expect(r.code).toBe(2);
  expect(r.stderr).toContain(process.platform === "linux" ? "run it as installed (npx ext image)" : "run it on Linux");
  expect(readdirSync(cwd)).toEqual([]);
});
