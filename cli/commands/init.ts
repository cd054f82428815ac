import { mkdirSync, readdirSync, type Stats, statSync } from "node:fs";
import { basename, dirname, join, resolve } from "node:path";
import { defineCommand } from "citty";
import { UsageError } from "../../src/calls/usage-error";
import { parseClientEnv } from "../../src/config";
import { writePrivateFile } from "../../src/private-file";
import { scaffoldFiles } from "../lib/scaffold";
import { shellQuote } from "../lib/shell-quote";
import { detectTestRunner, type FoundRunner, TEST_FILES, TEST_RUNNERS, type TestRunner } from "../lib/test-runner";
import { out } from "../output";

/**
 * A folder another user owns, or any user may write to (a shared /tmp path someone made ready), would let
 * them change the sample test or package.json between `ext init` and the owner's `npm test`: refused.
 */
function refuseSharedFolder(shown: string, folder: Stats): void {
  const uid = process.getuid?.();
  if (uid !== undefined && folder.uid !== uid)
    throw new UsageError(
      `${shown} belongs to another user (uid ${folder.uid}): ext init writes only into a folder of yours, which nobody else can change before you run what it made`,
    );
  if ((folder.mode & 0o002) !== 0)
    throw new UsageError(
      `${shown} can be written by every user of this machine: give a folder only you can write (or a new one, which ext init makes)`,
    );
}

/** What a new project file gets before the umask (typically 0644): the files `ext init` makes are the user's sources. */
const SHARED_FILE_MODE = 0o666;

export default defineCommand({
  meta: {
    name: "init",
    description: "Make a deployable extension folder: manifest, a sample sound, .extignore, README and a test",
  },
  args: {
    dir: {
      type: "positional",
      required: false,
      default: ".",
      description: "The folder to make (default: the current one); it must be new or empty",
      valueHint: "DIR",
    },
    name: {
      type: "string",
      description: "The extension's name in the manifest (default: the folder's name)",
      valueHint: "TEXT",
    },
    "test-runner": {
      type: "string",
      description:
        "The runner the sample test is written for: node, vitest or jest (default: the one the nearest package.json above the folder uses, else node)",
      valueHint: "RUNNER",
    },
  },
  async run({ args }) {
    const { command } = parseClientEnv();
    const dir = resolve(args.dir || ".");
    let existing: string[] = [];
    try {
      const folder = statSync(dir);
      if (!folder.isDirectory()) throw new UsageError(`${args.dir} exists and is not a folder`);
      refuseSharedFolder(args.dir || ".", folder);
      existing = readdirSync(dir);
    } catch (e) {
      if (e instanceof UsageError) throw e;
      if ((e as NodeJS.ErrnoException).code !== "ENOENT") throw e;
    }
    // Nothing of the user's is ever overwritten: a folder with anything in it is refused whole.
    if (existing.length > 0)
      throw new UsageError(`${args.dir} is not empty: give a new folder, e.g. ${command} init my-extension`);
    const name = args.name || basename(dir);
    const found = chosenRunner(args["test-runner"], dir);
    for (const [path, content] of Object.entries(scaffoldFiles(name, found))) {
      const file = join(dir, path);
      mkdirSync(dirname(file), { recursive: true });
      // Project files, meant to be shared (committed, read by collaborators): the umask's mode, never 0600.
      // Never replacing anything: a file or link that appeared meanwhile stops the command.
      writePrivateFile(file, content, { mode: SHARED_FILE_MODE, replace: false, what: "the new file" });
      out(`created ${join(args.dir || ".", path)}`);
    }
    const shown = args.dir || ".";
    const testFile = join(shown, "test", TEST_FILES[found.runner].file);
    out("");
    out(
      found.from
        ? `${testFile} is a ${found.runner} test: ${found.from} uses ${found.runner} (--test-runner to choose another)`
        : `${testFile} is a ${found.runner === "node" ? "node:test" : found.runner} test${args["test-runner"] ? "" : " (no vitest or jest in a package.json above; --test-runner to choose)"}`,
    );
    out("");
    out("next:");
    out(`  ${command} extensions create --name ${shellQuote(name)}     (prints the extension's id)`);
    out(`  ${command} deploy ${shellQuote(shown)} --extension ID --version 1.0.0`);
  },
});

function chosenRunner(given: string | undefined, dir: string): FoundRunner {
  if (given === undefined) return detectTestRunner(dir);
  if (!(TEST_RUNNERS as readonly string[]).includes(given))
    throw new UsageError(`--test-runner must be one of ${TEST_RUNNERS.join(", ")} (got "${given}")`);
  return { runner: given as TestRunner };
}
