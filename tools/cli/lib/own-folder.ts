/**
 * The folder a command fills with files the user will run or build (`ext init`'s project, `ext image`'s build
 * context) must stay the user's own until they use them: another user who owns it, can write to it, or can
 * rename it or a folder above it (a shared /tmp path made ready, a world-writable parent) could swap what was
 * written. So the folder is made here when it is new (each missing folder with mkdir, never one found ready),
 * an existing one must be empty and the user's, and every folder above it — as typed and as the links lead —
 * must be the user's or root's, writable by others only with the sticky bit (/tmp), which keeps them from
 * renaming what is not theirs. "Others" includes a group: a folder its group may write counts as shared
 * unless that group is the user's own primary group (a private group of theirs on most systems). Read with
 * lstat: a link is not a folder.
 */
import {
  closeSync,
  constants,
  existsSync,
  fchmodSync,
  lstatSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  realpathSync,
  type Stats,
} from "node:fs";
import { userInfo } from "node:os";
import { dirname, join, relative, resolve, sep } from "node:path";
import { UsageError } from "../../calls/usage-error";

const OTHERS_WRITE = 0o002;
const GROUP_WRITE = 0o020;
const STICKY = 0o1000;

/** True when users other than the owner may write in `entry`: every user, or a group not the user's own. */
function writableByOthers(entry: Stats): boolean {
  if ((entry.mode & OTHERS_WRITE) !== 0) return true;
  return (entry.mode & GROUP_WRITE) !== 0 && !privateGroup(entry.gid);
}

/**
 * True when `gid` is the user's own group and nobody else's: their primary group, listing no other member in
 * /etc/group, and the primary group of no other account in /etc/passwd (a shared `users` group is not private).
 */
function privateGroup(gid: number): boolean {
  if (gid !== process.getgid?.()) return false;
  const me = userInfo().username;
  try {
    const group = readFileSync("/etc/group", "utf8")
      .split("\n")
      .map((line) => line.split(":"))
      .find((f) => f[2] === String(gid));
    if (group?.[3]?.split(",").some((member) => member !== "" && member !== me)) return false;
    const others = readFileSync("/etc/passwd", "utf8")
      .split("\n")
      .map((line) => line.split(":"))
      .filter((f) => f[3] === String(gid) && f[0] !== me);
    return others.length === 0;
  } catch {
    return false; // cannot tell: not private
  }
}

/** Who else may write in `entry`, in words. */
const writers = (entry: Stats) =>
  (entry.mode & OTHERS_WRITE) !== 0 ? "every user of this machine" : `the users of its group (gid ${entry.gid})`;

/**
 * Makes `dir` (new) or accepts it (an empty folder of the user's); returns its absolute path. `shown` is the
 * path as the user typed it, for messages.
 */
export function claimOwnFolder(dir: string, shown: string): string {
  const path = resolve(dir);
  const missing: string[] = [];
  let nearest = path;
  while (!existsSync(nearest) && dirname(nearest) !== nearest) {
    missing.unshift(nearest);
    nearest = dirname(nearest);
  }
  const above = missing.length > 0 ? nearest : dirname(path);
  checkAbove(above, shown);
  checkAbove(realpathSync(above), shown);
  for (const folder of missing) {
    try {
      mkdirSync(folder, { mode: 0o755 });
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== "EEXIST") throw e;
    }
    // Made by us, or by someone else meanwhile: either way it must be ours now.
    refuseShared(folder === path ? shown : folder, lstatSync(folder));
  }
  if (missing.length === 0) {
    const folder = lstatSync(path);
    refuseShared(shown, folder);
    if (readdirSync(path).length > 0) throw new UsageError(`${shown} is not empty`);
  }
  return path;
}

/**
 * Makes the missing folders of `folder` below `root` (a folder claimOwnFolder gave: nobody else can write in
 * it, so nothing can stand in for them meanwhile), each created with `mode`, which a umask can only narrow.
 * `exact`: the mode is then set on the new folder's own descriptor, whatever the umask (an image's folders need
 * their bits for the image's user). Each folder on the way is checked after: the user's, and no one else's to
 * write, whatever the umask or a default ACL made of it.
 */
export function makeOwnFolders(root: string, folder: string, mode: number, exact = false): void {
  let at = root;
  for (const part of relative(root, folder).split(sep).filter(Boolean)) {
    at = join(at, part);
    let made = true;
    try {
      mkdirSync(at, { mode });
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== "EEXIST") throw e;
      made = false;
    }
    if (made && exact) {
      const fd = openSync(at, constants.O_RDONLY | constants.O_DIRECTORY | constants.O_NOFOLLOW);
      try {
        fchmodSync(fd, mode);
      } finally {
        closeSync(fd);
      }
    }
    refuseShared(at, lstatSync(at));
  }
}

function refuseShared(shown: string, folder: Stats): void {
  if (!folder.isDirectory()) throw new UsageError(`${shown} exists and is not a folder`);
  const uid = process.getuid?.();
  if (uid !== undefined && folder.uid !== uid)
    throw new UsageError(
      `${shown} belongs to another user (uid ${folder.uid}): give a folder of yours, which nobody else can change before you use what is written there`,
    );
  if (writableByOthers(folder))
    throw new UsageError(`${shown} can be written by ${writers(folder)}: give a folder only you can write`);
}

/** `start`, then each folder above it, up to the root. */
function* foldersUpFrom(start: string): Generator<string> {
  for (let at = start; ; at = dirname(at)) {
    yield at;
    if (dirname(at) === at) return;
  }
}

/** `start` and every folder above it: the user's or root's, not writable by others unless sticky; a link, theirs too. */
function checkAbove(start: string, shown: string): void {
  const uid = process.getuid?.();
  if (uid === undefined) return; // Windows: no owners or modes to read
  for (const at of foldersUpFrom(start)) {
    const entry = lstatSync(at);
    if (entry.uid !== uid && entry.uid !== 0)
      throw new UsageError(
        `${shown}: ${at} above it belongs to another user (uid ${entry.uid}), who could swap what is written there`,
      );
    if (!entry.isSymbolicLink() && writableByOthers(entry) && (entry.mode & STICKY) === 0)
      throw new UsageError(
        `${shown}: ${at} above it can be written by ${writers(entry)}, who could swap what is written there`,
      );
  }
}

/** What npm and Node read from the folders above a project: its root (package.json, whose scripts npm runs), and modules. */
const PROJECT_ENTRIES = [
  "package.json",
  "node_modules",
  ".npmrc",
  ".yarnrc",
  ".yarnrc.yml",
  "pnpm-workspace.yaml",
  "package-lock.json",
];

/**
 * A new project must not sit below another user's package.json or node_modules: npm takes a package.json above
 * that lists the folder as a workspace for the project's root (and runs its scripts on `npm install`), and Node
 * looks for modules in every node_modules above. In a sticky shared folder (/tmp) anyone can plant them. The
 * user's own and root's are fine.
 */
export function refuseForeignProjectAbove(dir: string, shown: string): void {
  const uid = process.getuid?.();
  if (uid === undefined) return;
  // As typed and as the links lead: npm and Node walk the real path up.
  const starts = [dirname(resolve(dir))];
  try {
    starts.push(realpathSync(nearestExisting(dirname(resolve(dir)))));
  } catch {
    // nothing of it exists: the typed path is all there is
  }
  for (const start of starts) refuseForeignAbove(start, shown, uid);
}

/** The deepest folder of `path` that exists. */
function nearestExisting(path: string): string {
  let at = path;
  while (!existsSync(at) && dirname(at) !== at) at = dirname(at);
  return at;
}

function refuseForeignAbove(start: string, shown: string, uid: number): void {
  for (const at of foldersUpFrom(start)) {
    for (const name of PROJECT_ENTRIES) {
      const path = join(at, name);
      let entry: Stats;
      try {
        entry = lstatSync(path);
      } catch {
        continue;
      }
      if (entry.uid !== uid && entry.uid !== 0)
        throw new UsageError(
          `${shown}: ${path} above it belongs to another user (uid ${entry.uid}); npm and Node would take it as part of your project (npm runs a package.json's scripts): give a folder elsewhere`,
        );
    }
  }
}

/**
 * The first folder above `dir` (by its real path) that every user may write, sticky or not, or null: anyone can
 * put a package.json or node_modules there later, after `ext init` has looked, so the user is told.
 */
export function sharedFolderAbove(dir: string): string | null {
  if (process.getuid?.() === undefined) return null;
  try {
    for (const at of foldersUpFrom(realpathSync(nearestExisting(dirname(resolve(dir))))))
      if ((lstatSync(at).mode & OTHERS_WRITE) !== 0) return at;
    return null;
  } catch {
    return null;
  }
}
