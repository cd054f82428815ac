/**
 * What `ext image` and `ext init` make, with the compiled binary: nothing in it another user of the machine
 * can write, whatever the owner's umask. A build context's folder another user could write would let them
 * put files into the owner's image (a hard link to an owner's secret, a FIFO) or swap its C library; a
 * project's, change the sources the owner then runs.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { chmodSync, lstatSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { BUILD_TIMEOUT_MS, type Built, buildBinary, cleanEnv } from "./helpers";
import { type OtherUser, otherUser } from "./other-user";

let built: Built;
/** A folder of the owner's that other users may enter (as a home folder often is), not write. */
let open: string;
beforeAll(() => {
  built = buildBinary();
  open = mkdtempSync(join(tmpdir(), "ext-made-"));
  chmodSync(open, 0o755);
}, BUILD_TIMEOUT_MS);
afterAll(() => {
  rmSync(open, { recursive: true, force: true });
  built?.cleanup();
});

/** Runs the binary under `umask`; its exit code and stderr. */
async function extUnder(umask: string, args: string[]) {
  const proc = Bun.spawn(["sh", "-c", `umask ${umask} && exec "$0" "$@"`, built.bin, ...args], {
    cwd: built.work,
    env: cleanEnv(),
    stdout: "pipe",
    stderr: "pipe",
  });
  const [code, stderr] = await Promise.all([proc.exited, new Response(proc.stderr).text()]);
  return { code, stderr };
}

/** Every entry under `dir` (itself included), by its path relative to `dir`. */
function entries(dir: string): string[] {
  return ["", ...readdirSync(dir, { recursive: true }).map(String)];
}

/** The entries under `dir` that a user other than the owner may write (its group included), with their modes. */
function writableByOthers(dir: string): string[] {
  return entries(dir)
    .map((path) => ({ path, mode: lstatSync(join(dir, path)).mode }))
    .filter(({ mode }) => (mode & 0o022) !== 0)
    .map(({ path, mode }) => `${path || "."} ${(mode & 0o7777).toString(8)}`);
}

/** Each entry's mode, by path (`.` for `dir` itself). */
function modes(dir: string): Record<string, string> {
  return Object.fromEntries(
    entries(dir).map((path) => [path || ".", (lstatSync(join(dir, path)).mode & 0o7777).toString(8)]),
  );
}

/** What `ext init` and `ext image` should make: folders 0755, files 0644 (the binary and libraries 0755), data 0700. */
function expectedModes(dir: string): Record<string, string> {
  return Object.fromEntries(
    entries(dir).map((path) => {
      const entry = lstatSync(join(dir, path));
      const executable = path === "rootfs/ext" || /\.so(\.\d+)*$/.test(path);
      const mode = path === "data" ? 0o700 : entry.isDirectory() || executable ? 0o755 : 0o644;
      return [path || ".", mode.toString(8)];
    }),
  );
}

describe("under a loose umask (000, or 002 with a shared group), what they make is the owner's to write alone", () => {
  for (const umask of ["000", "002"])
    test(`umask ${umask}: ext init's folders are 0755 and its files 0644; ext image's as its user needs them`, async () => {
      const where = mkdtempSync(join(open, `umask-${umask}-`));
      for (const what of ["init", "image"]) {
        const made = join(where, what);
        expect(await extUnder(umask, [what, made])).toMatchObject({ code: 0 });
        expect(writableByOthers(made)).toEqual([]);
        expect(modes(made)).toEqual(expectedModes(made));
      }
    }, 30_000);

  test("umask 077: the image's folders still have the modes its user needs (0755), set on each as it is made", async () => {
    const ctx = join(mkdtempSync(join(open, "umask-077-")), "ctx");
    expect(await extUnder("077", ["image", ctx])).toEqual({ code: 0, stderr: "" });
    const folders = entries(ctx).filter((p) => p.startsWith("rootfs") && lstatSync(join(ctx, p)).isDirectory());
    expect(folders).toEqual(expect.arrayContaining(["rootfs", "rootfs/etc", "rootfs/lib"]));
    expect(folders.map((p) => `${p} ${modes(ctx)[p]}`)).toEqual(folders.map((p) => `${p} 755`));
  }, 30_000);
});

const OTHER = otherUser(["mkfifo", "touch", "ln"]);

describe.skipIf(typeof OTHER === "string")(
  `another local user${typeof OTHER === "string" ? ` (skipped: ${OTHER})` : ""}`,
  () => {
    const user = OTHER as OtherUser;
    /** A file of theirs to link from (with protected_hardlinks on, a link to the owner's file is refused anyway). */
    let theirs: string;
    beforeAll(() => {
      const shared = mkdtempSync(join(tmpdir(), "ext-made-shared-"));
      chmodSync(shared, 0o1777);
      theirs = join(shared, "theirs.txt");
      expect(user.run(["touch", theirs]).code).toBe(0);
    });
    afterAll(() => {
      user.remove();
      rmSync(dirname(theirs), { recursive: true, force: true });
    });

    /** The folders under `dir` the other user could put a file, a FIFO or a hard link of theirs into. */
    function plantable(dir: string): string[] {
      const folders = entries(dir).filter((p) => lstatSync(join(dir, p)).isDirectory());
      const got: string[] = [];
      for (const folder of folders) {
        const at = join(dir, folder);
        const tries = [
          ["touch", join(at, "planted")],
          ["mkfifo", join(at, "planted.fifo")],
          ["ln", theirs, join(at, "planted.link")],
        ];
        for (const argv of tries) if (user.run(argv).code === 0) got.push(`${folder || "."}: ${argv[0]}`);
      }
      return got;
    }

    test("ext image: the other user can put nothing into the build context, /tmp included", async () => {
      const ctx = join(open, "ctx");
      const r = await extUnder("022", ["image", ctx]);
      expect(r).toEqual({ code: 0, stderr: "" });
      expect(plantable(ctx)).toEqual([]);
      expect(writableByOthers(ctx)).toEqual([]);
    }, 30_000);

    test("umask 000: the other user can put nothing into ext init's project or ext image's context", async () => {
      for (const what of ["init", "image"]) {
        const made = join(open, `${what}-000`);
        expect(await extUnder("000", [what, made])).toMatchObject({ code: 0 });
        expect(plantable(made)).toEqual([]);
      }
    }, 60_000);
  },
);
