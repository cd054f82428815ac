/**
 * A container build context of the running `ext` binary: what `ext image DIR` writes and `npm run image`
 * builds, so the image built from an installed package is the one the repository builds. The Containerfile
 * (packaging/image/Containerfile: `FROM scratch`, the binary, the C library it links against, an unprivileged
 * user, /tmp) is written as DIR/Dockerfile with its build arguments' defaults filled in, so a plain
 * `docker build DIR` or `podman build DIR` labels the image with this binary's version and commit.
 *
 * Nothing in the context may be writable by another user: whatever they put there would be in the owner's
 * image. So the image's /tmp (1777, for every user of the image) is no folder of the context but an entry of
 * tmp.tar, which the Containerfile's ADD unpacks with the entry's mode: every builder keeps it (Docker's
 * legacy builder and BuildKit, podman), where `COPY --chmod` needs BuildKit.
 */
import { spawnSync } from "node:child_process";
import { createReadStream, realpathSync, statSync } from "node:fs";
import { dirname, join } from "node:path";
import { pipeline } from "node:stream/promises";
import tar from "tar-stream";
import { writePrivateFile } from "../../../common/files/private-file";
import { privateFileSink } from "../../../common/files/private-file-sink";
import containerfile from "../../../packaging/image/Containerfile" with { type: "text" };
import { UsageError } from "../../calls/usage-error";
import { claimOwnFolder, makeOwnFolders } from "./own-folder";

/** What the image's files need: the binary and its libraries run as another user; passwd is read by all. */
const EXECUTABLE = 0o755;
const READABLE = 0o644;
/** The image's /tmp: every user of the image may write there, and remove only their own files. */
const SHARED_TMP = 0o1777;
/** The date of tmp.tar's entry: the same context, byte for byte, from the same binary. */
const FIXED_MTIME = new Date(Date.UTC(2000, 0, 1));

export interface ImageContext {
  dir: string;
  /** Bytes of the binary and of the libraries copied beside it. */
  binaryBytes: number;
  libraries: { path: string; bytes: number }[];
}

/** The shared libraries `ldd` names for the binary (the dynamic loader included), by the path they load from. */
export function sharedLibraries(binary: string): string[] {
  const r = spawnSync("ldd", [binary], { encoding: "utf8" });
  if (r.error || r.status !== 0)
    throw new UsageError(
      `cannot list the libraries ${binary} links against (ldd ${r.error ? "is not installed" : `failed: ${r.stderr.trim()}`})`,
    );
  return r.stdout
    .split("\n")
    .map((line) => /(\/\S+) \(0x/.exec(line)?.[1])
    .filter((p): p is string => p !== undefined);
}

/** The Containerfile with each build argument's default given, so no --build-arg is needed. */
export function dockerfileText(args: { version: string; commit: string; source: string }): string {
  return containerfile
    .replace(/^ARG VERSION$/m, `ARG VERSION=${args.version}`)
    .replace(/^ARG COMMIT$/m, `ARG COMMIT=${args.commit}`)
    .replace(/^ARG SOURCE$/m, `ARG SOURCE=${args.source}`);
}

/** An image's file: its mode exact (the umask does not apply: the image's user needs the bits), set before it is in place. */
const imageFile = (mode: number) => ({ mode, exactMode: true, what: "a file of the image" });

/** tmp.tar: the image's /tmp, root's and 1777, as the one entry of a tar (the Containerfile ADDs it at /). */
async function sharedTmpArchive(): Promise<Uint8Array> {
  const pack = tar.pack();
  pack.entry({ name: "tmp/", type: "directory", mode: SHARED_TMP, uid: 0, gid: 0, mtime: FIXED_MTIME });
  pack.finalize();
  const chunks: Buffer[] = [];
  for await (const chunk of pack) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

/** The context's folders (rootfs/, rootfs/etc/, the libraries' folders): exactly 0755, the image's user reads them. */
const imageFolders = (dir: string, folder: string) => makeOwnFolders(dir, folder, EXECUTABLE, true);

async function copyAs(dir: string, from: string, to: string, mode: number): Promise<number> {
  imageFolders(dir, dirname(to));
  await pipeline(createReadStream(realpathSync(from)), privateFileSink(to, imageFile(mode)));
  return statSync(to).size;
}

/**
 * Writes the context into `dir`, which must be new or an empty folder of the user's alone (own-folder.ts:
 * nobody else may swap what a build then takes): Dockerfile, rootfs/ (the binary as /ext, its libraries,
 * /etc/passwd and /etc/group), tmp.tar (/tmp) and data/ (the server's folder). `shown` is `dir` as typed.
 */
export async function writeImageContext(
  dir: string,
  shown: string,
  binary: string,
  labels: { version: string; commit: string; source: string },
): Promise<ImageContext> {
  try {
    dir = claimOwnFolder(dir, shown);
  } catch (e) {
    if (e instanceof UsageError && e.message.endsWith("is not empty"))
      throw new UsageError(
        `${e.message}: give a new folder for the build context, or remove the old one first: ext image writes a context whole, never over another`,
      );
    throw e;
  }
  const rootfs = join(dir, "rootfs");
  imageFolders(dir, join(rootfs, "etc"));
  makeOwnFolders(dir, join(dir, "data"), 0o700);
  const binaryBytes = await copyAs(dir, binary, join(rootfs, "ext"), EXECUTABLE);
  const libraries: ImageContext["libraries"] = [];
  for (const lib of sharedLibraries(binary))
    libraries.push({ path: lib, bytes: await copyAs(dir, lib, join(rootfs, lib), EXECUTABLE) });
  const shared = (path: string, data: string | Uint8Array) =>
    writePrivateFile(join(dir, path), data, imageFile(READABLE));
  shared("rootfs/etc/passwd", "root:x:0:0:root:/:/sbin/nologin\next:x:10001:10001:ext:/data:/sbin/nologin\n");
  shared("rootfs/etc/group", "root:x:0:\next:x:10001:\n");
  shared("tmp.tar", await sharedTmpArchive());
  shared("Dockerfile", dockerfileText(labels));
  return { dir, binaryBytes, libraries };
}
