/**
 * One Ctrl-C can arrive twice (the terminal's and the npm launcher's forwarded copy). The copy that lands
 * after the command has stopped listening must not kill it before it reports what became of its work.
 */
import { expect, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { waitFor } from "../helpers/wait-for";

const INTERRUPTS = resolve(import.meta.dir, "../../tools/cli/lib/interrupts.ts");
const BUN = resolve(import.meta.dir, "../../node_modules/.bin/bun");

test("a repeated SIGINT after close() is still taken as the same Ctrl-C: the command ends with its own exit code", async () => {
  const dir = mkdtempSync(join(tmpdir(), "ext-interrupts-"));
  try {
    const script = join(dir, "command.ts");
    writeFileSync(
      script,
      `import { listenForInterrupts } from ${JSON.stringify(INTERRUPTS)};
// The clock stands still: the late copy is within the repeat window however long a busy machine delays it.
const interrupts = listenForInterrupts(() => 0);
const waited = interrupts.during(new Promise(() => {}), () => new Error("stopped"));
console.log("waiting");
await waited.catch(() => undefined);
interrupts.close();
console.log("closed");
process.stdin.on("data", () => { console.log("reported"); process.exit(130); });
`,
    );
    const proc = Bun.spawn([BUN, script], { stdin: "pipe", stdout: "pipe", stderr: "pipe" });
    let out = "";
    void (async () => {
      for await (const chunk of proc.stdout) out += new TextDecoder().decode(chunk);
    })();
    await waitFor(() => out.includes("waiting"), "the command to wait");
    proc.kill("SIGINT");
    await waitFor(() => out.includes("closed"), "the command to stop listening");
    // The forwarded copy, late. Pending from this call on: the child meets it before it can read its stdin.
    proc.kill("SIGINT");
    proc.stdin.write("report\n");
    await proc.stdin.end();
    expect({ code: await proc.exited, signal: proc.signalCode }).toEqual({ code: 130, signal: null });
    expect(out).toContain("reported");
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
