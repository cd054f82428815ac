import { basename, join } from "node:path";
import { defineCommand } from "citty";
import { formatBytes } from "../../../common/text/format";
import pkg from "../../../package.json" with { type: "json" };
import { UsageError } from "../../calls/usage-error";
import { parseClientEnv } from "../../config";
import { writeImageContext } from "../lib/image-context";
import { buildCommit } from "../lib/version";
import { out } from "../output";

export default defineCommand({
  meta: {
    name: "image",
    description:
      "Write a container build context of this ext (a Dockerfile, the binary and the C library it links against) that docker build or podman build turns into the emulator's image",
  },
  args: {
    dir: {
      type: "positional",
      required: false,
      default: "ext-image",
      description: "The folder to write (default: ext-image); it must be new or empty",
      valueHint: "DIR",
    },
  },
  async run({ args }) {
    const { command } = parseClientEnv();
    if (process.platform !== "linux")
      throw new UsageError(
        "ext image builds a Linux image from this machine's binary and C library: run it on Linux (a CI job, a Linux VM)",
      );
    const binary = process.execPath;
    // From a checkout `bun tools/cli/main.ts image` runs under Bun itself, which is not the emulator's binary.
    if (/^bun(-debug)?(\.exe)?$/i.test(basename(binary)))
      throw new UsageError(
        "ext image copies the compiled ext binary: run it as installed (npx ext image), or npm run image",
      );
    const shown = args.dir || "ext-image";
    const context = await writeImageContext(shown, shown, binary, {
      version: pkg.version,
      commit: buildCommit(),
      source: `npm:ext-emulator@${pkg.version}`,
    });
    const tag = `ext-emulator:${pkg.version}`;
    out(`wrote a container build context of ext ${pkg.version} (linux-${process.arch}) in ${shown}:`);
    out(`  ${join(shown, "Dockerfile")}`);
    out(`  ${join(shown, "rootfs/ext")}  ${formatBytes(context.binaryBytes)}`);
    for (const lib of context.libraries) out(`  ${join(shown, "rootfs", lib.path)}  ${formatBytes(lib.bytes)}`);
    out("");
    for (const line of buildAndRun(shown, tag)) out(line);
    out(`(the same image the repository's npm run image builds; ${command} image --help for more)`);
  },
});

/**
 * How to build and run the image. The admin token goes to docker through its environment (`-e NAME` with no
 * value): a value in docker's arguments would show in `ps` to every user of the machine while it runs.
 */
export function buildAndRun(shown: string, tag: string): string[] {
  return [
    "build it:",
    `  docker build -t ${tag} ${shown}     (or: podman build --format docker -t ${tag} ${shown})`,
    "then, with the control plane's token in the environment (not in docker's arguments, which `ps` shows):",
    "  export EXT_ADMIN_TOKEN=$(openssl rand -hex 32)",
    `  docker run --rm -p 4780:4780 -e EXT_ADMIN_TOKEN ${tag}`,
  ];
}
