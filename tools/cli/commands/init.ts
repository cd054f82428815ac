import { basename, dirname, join, resolve } from "node:path";
import { defineCommand } from "citty";
import { writePrivateFile } from "../../../common/files/private-file";
import { printable } from "../../../common/text/printable";
import { shellQuote } from "../../../common/text/shell-quote";
import { UsageError } from "../../calls/usage-error";
import { parseClientEnv } from "../../config";
import { claimOwnFolder, makeOwnFolders, refuseForeignProjectAbove, sharedFolderAbove } from "../lib/own-folder";
import { scaffoldFiles } from "../lib/scaffold";
import { detectTestRunner, type FoundRunner, TEST_FILES, TEST_RUNNERS, type TestRunner } from "../lib/test-runner";
import { err, out } from "../output";

/**
 * The files `ext init` makes are the user's sources, meant to be shared (committed, read by collaborators) but
 * written by the user alone: 0644 and its folders 0755, which a umask can narrow, never widen (a loose one, 000
 * or 002 with a shared group, would let others change what the user then runs).
 */
const SHARED_FILE_MODE = 0o644;
const FOLDER_MODE = 0o755;

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
    const shown = args.dir || ".";
    // Nothing of another user's above the project, which npm or Node would take as the project's own.
    refuseForeignProjectAbove(shown, shown);
    const shared = sharedFolderAbove(shown);
    if (shared)
      err(
        `warning: ${printable(shared)} above ${printable(shown)} can be written by every user: anyone can later put a package.json or node_modules there, which npm and Node would take as part of this project; keep projects in a folder of yours`,
      );
    // The runner first (it only reads): a refused --test-runner leaves no folder made.
    const found = chosenRunner(args["test-runner"], resolve(shown));
    // Nothing of the user's is ever overwritten: a folder with anything in it is refused whole, and one that
    // is not the user's alone (own-folder.ts) too.
    let dir: string;
    try {
      dir = claimOwnFolder(shown, shown);
    } catch (e) {
      if (e instanceof UsageError && e.message.endsWith("is not empty"))
        throw new UsageError(`${e.message}: give a new folder, e.g. ${command} init my-extension`);
      throw e;
    }
    const name = args.name || basename(dir);
    for (const [path, content] of Object.entries(scaffoldFiles(name, found))) {
      const file = join(dir, path);
      makeOwnFolders(dir, dirname(file), FOLDER_MODE);
      // Project files, meant to be shared (committed, read by collaborators): never 0600.
      // Never replacing anything: a file or link that appeared meanwhile stops the command.
      writePrivateFile(file, content, { mode: SHARED_FILE_MODE, replace: false, what: "the new file" });
      out(`created ${join(args.dir || ".", path)}`);
    }
    const testFile = join(shown, "test", TEST_FILES[found.runner].file);
    out("");
    out(
      found.from
        ? `${testFile} is a ${found.runner} test: ${printable(found.from)} uses ${found.runner} (--test-runner to choose another)`
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
