/**
 * The help as a newcomer meets it, from the compiled binary: a bare `ext` shows it (exit 0), and every
 * line fits the terminal (80 columns through a pipe, the terminal's own width on a TTY) with no padding
 * at its end.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { deployArgs } from "../../tools/cli/commands/deploy";
import { BUILD_TIMEOUT_MS, type Built, buildBinary, cleanEnv, run } from "./helpers";

let built: Built;

beforeAll(() => {
  built = buildBinary();
}, BUILD_TIMEOUT_MS);
afterAll(() => built?.cleanup());

const COMMANDS = ["serve", "deploy", "seed", "exec", "secrets", "openapi", "logs", "health"];

function expectFits(text: string, width: number, what: string) {
  for (const line of text.split("\n")) {
    expect(line.length, `${what}: ${JSON.stringify(line)}`).toBeLessThanOrEqual(width);
    expect(line, `${what}: trailing spaces`).toBe(line.trimEnd());
  }
}

describe("ext with no arguments", () => {
  test("shows the help on stdout and exits 0", async () => {
    const bare = await run(built.bin, [], { cwd: built.work });
    expect(bare.code).toBe(0);
    expect(bare.stderr).toBe("");
    expect(bare.stdout).toBe((await run(built.bin, ["--help"], { cwd: built.work })).stdout);
    expect(bare.stdout).toContain("COMMANDS");
  });
});

describe("help lines fit the terminal", () => {
  test("through a pipe: 80 columns, no trailing spaces, nothing lost", async () => {
    for (const cmd of [[], ...COMMANDS.map((c) => [c])]) {
      const r = await run(built.bin, [...cmd, "--help"], { cwd: built.work });
      expect(r.code).toBe(0);
      expectFits(r.stdout, 80, `ext ${cmd.join(" ")} --help`);
    }
    // A wrapped table row continues under its description column.
    const deploy = (await run(built.bin, ["deploy", "--help"], { cwd: built.work })).stdout;
    const target = deploy.split("\n").findIndex((l) => l.trimStart().startsWith("--target=<local|URL>"));
    const column = /^( *\S+ {2,})/.exec(deploy.split("\n")[target]!)![1]!.length;
    const next = deploy.split("\n")[target + 1]!;
    expect(next.search(/\S/)).toBe(column);
    expect(deploy.replace(/\s+/g, " ")).toContain(deployArgs.target.description);
    // The root's command list, one word longer than a line, is cut after its bars, not dropped.
    const root = (await run(built.bin, ["--help"], { cwd: built.work })).stdout;
    const usage = root.slice(root.indexOf("USAGE"), root.indexOf("\n\n", root.indexOf("USAGE")));
    expect(usage.replace(/\s+/g, "")).toContain(
      "serve|deploy|seed|export|exec|secrets|openapi|logs|health|init|extensions|versions|installs|limits",
    );
  });

  test("on a terminal: its width (a 60-column pseudo-terminal)", async () => {
    // script(1) gives the binary a real pseudo-terminal; stty sets the width the binary reads from it.
    const proc = Bun.spawn(["script", "-qec", `stty cols 60 rows 40; '${built.bin}' deploy --help`, "/dev/null"], {
      cwd: built.work,
      env: cleanEnv({ TERM: "dumb", NO_COLOR: "1" }),
      stdout: "pipe",
      stderr: "pipe",
    });
    const text = await new Response(proc.stdout).text();
    expect(await proc.exited).toBe(0);
    // The terminal's colour escapes take no columns.
    const lines = text
      .replace(new RegExp(`${String.fromCharCode(27)}\\[[0-9;]*m`, "g"), "")
      .replace(/\r/g, "")
      .trimEnd();
    expect(lines).toContain("OPTIONS");
    expectFits(lines, 60, "ext deploy --help on a 60-column terminal");
    expect(lines.split("\n").some((l) => l.length > 50)).toBe(true);
  });
});
