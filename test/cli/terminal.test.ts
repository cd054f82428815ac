/**
 * stdoutIsTerminal (tools/cli/lib/terminal.ts) decides whether secrets are printed: a real terminal only. It
 * settles files, pipes and the null device without node:tty, so each is checked here in a process of its own,
 * and so is a pseudo-terminal (`script`), the one case that is a terminal.
 */
import { afterAll, expect, test } from "bun:test";
import { closeSync, mkdtempSync, openSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const MODULE = join(import.meta.dir, "../../tools/cli/lib/terminal.ts");
/** Says on stderr what it finds of its stdout. */
const PROGRAM = `import { stdoutIsTerminal } from ${JSON.stringify(MODULE)}; console.error(stdoutIsTerminal() ? "terminal" : "not");`;
const dir = mkdtempSync(join(tmpdir(), "ext-terminal-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function verdict(stdout: "pipe" | "ignore" | number): Promise<string> {
  const proc = Bun.spawn([process.execPath, "-e", PROGRAM], { stdout, stderr: "pipe" });
  const said = await new Response(proc.stderr as ReadableStream).text();
  expect(await proc.exited).toBe(0);
  return said.trim();
}

test("a pipe, a file and the null device are not terminals", async () => {
  expect(await verdict("pipe")).toBe("not");
  const fd = openSync(join(dir, "out.txt"), "w");
  try {
    expect(await verdict(fd)).toBe("not");
  } finally {
    closeSync(fd);
  }
  // A character device, like a terminal: told apart by its device number.
  expect(await verdict("ignore")).toBe("not");
});

test("a terminal is one", async () => {
  const program = join(dir, "program.ts");
  await Bun.write(program, PROGRAM);
  // `script` runs the program on a pseudo-terminal (stdout and stderr both) and copies what it prints.
  const proc = Bun.spawn(["script", "-qec", `'${process.execPath}' '${program}'`, "/dev/null"], {
    stdout: "pipe",
    stderr: "pipe",
  });
  // Bun colours what the console writes to a terminal: the word is looked for, not the whole line.
  const said = await new Response(proc.stdout as ReadableStream).text();
  expect(said).toContain("terminal");
  expect(said).not.toContain("not");
  expect(await proc.exited).toBe(0);
});
