/**
 * `ext serve --exit-with-stdin`: no orphan when the process that started the server dies, even by SIGKILL
 * (its end of the stdin pipe closes). Without the flag the same server outlives its parent, which shows
 * the test can tell the two apart.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseServerConfig } from "../../server/base/config";
import { watchStdin } from "../../tools/cli/lib/stdin-watch";
import { alive, goneSoon } from "../binary/helpers";
import { cleanEnv } from "../helpers/clean-env";
import { readReadyFile } from "../helpers/ready-file";
import { extBinary } from "../helpers/run-cli";

const ROOT = join(import.meta.dir, "../..");
const BUN = join(ROOT, "node_modules/.bin/bun");
const dir = mkdtempSync(join(tmpdir(), "ext-stdin-watch-"));
const pids: number[] = [];
afterAll(() => {
  for (const pid of pids) if (alive(pid)) process.kill(pid, "SIGKILL");
  rmSync(dir, { recursive: true, force: true });
});

/** A parent that starts `ext serve` with a pipe as its stdin (never written), prints the server's pid, and idles. */
const PARENT = `
const [ext, ready, ...flags] = process.argv.slice(2);
const child = require("node:child_process").spawn(ext, ["serve", "--memory", "--port", "0", "--ready-file", ready, ...flags], { stdio: ["pipe", "ignore", "pipe"] });
child.stderr.resume();
process.stdout.write(child.pid + "\\n");
setInterval(() => {}, 60_000);
`;

async function startParent(
  name: string,
  flags: string[],
): Promise<{ parent: ReturnType<typeof Bun.spawn>; server: number }> {
  const script = join(dir, `${name}.cjs`);
  const ready = join(dir, `${name}.json`);
  writeFileSync(script, PARENT);
  const parent = Bun.spawn([BUN, script, extBinary(), ready, ...flags], {
    env: cleanEnv(),
    stdout: "pipe",
    stderr: "inherit",
  });
  pids.push(parent.pid);
  const reader = parent.stdout.getReader();
  let text = "";
  while (!text.includes("\n")) {
    const { value, done } = await reader.read();
    if (done) throw new Error("the parent exited before starting the server");
    text += new TextDecoder().decode(value);
  }
  const server = Number(text.trim());
  pids.push(server);
  expect((await readReadyFile<{ pid: number }>(ready, () => !alive(server))).pid).toBe(server);
  return { parent, server };
}

describe("ext serve --exit-with-stdin", () => {
  test("the server exits when its parent is killed with SIGKILL", async () => {
    const { parent, server } = await startParent("watched", ["--exit-with-stdin"]);
    parent.kill("SIGKILL");
    await parent.exited;
    expect(await goneSoon(server)).toBe(true);
  }, 45_000);

  test("without the flag the server outlives its parent (what the flag is for)", async () => {
    const { parent, server } = await startParent("unwatched", []);
    parent.kill("SIGKILL");
    await parent.exited;
    // Still there 2.5 s after its parent died (goneSoon then kills it).
    expect(await goneSoon(server, 2_500)).toBe(false);
  }, 20_000);
});

describe("watchStdin", () => {
  test("fires once when the input ends, not before; data written to it is dropped", async () => {
    const pipe = new TransformStream<Uint8Array, Uint8Array>();
    let calls = 0;
    let ended: () => void = () => {};
    const fired = new Promise<void>((resolve) => (ended = resolve));
    watchStdin(() => {
      calls++;
      ended();
    }, pipe.readable);
    const writer = pipe.writable.getWriter();
    // Resolves once the watcher has read it.
    await writer.write(new TextEncoder().encode("anything"));
    expect(calls).toBe(0);
    await writer.close();
    await fired;
    expect(calls).toBe(1);
  });

  test("EXT_EXIT_WITH_STDIN and the flag set it; off by default", () => {
    expect(parseServerConfig({}, {}).exitWithStdin).toBe(false);
    expect(parseServerConfig({}, { EXT_EXIT_WITH_STDIN: "1" }).exitWithStdin).toBe(true);
    expect(parseServerConfig({ exitWithStdin: false }, { EXT_EXIT_WITH_STDIN: "1" }).exitWithStdin).toBe(false);
  });
});
