/**
 * Strings a server gives reach the terminal escaped (common/text/printable.ts): a hostile server's id carrying an
 * OSC title, a screen clear and a command substitution is shown as escapes, and where the CLI prints it in a
 * command for the user to run, quoted for a shell too. Real sockets: a server answering the create, the CLI
 * as a subprocess; the deploy's wait notice as a function.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { logLine } from "../../tools/cli/commands/logs";
import { waitNotice } from "../../tools/deploy/wait-notice";
import { runCli } from "../helpers/run-cli";

/** Any C0 control but a line break, or DEL: what must never reach the terminal raw. */
const hasControl = (text: string) => [...text].some((c) => (c < " " && c !== "\n") || c === "\x7f");

const HOSTILE_ID = "ext_1\x1b]0;OWNED\x07\x1b[2J $(touch /tmp/owned)";

let cwd: string;
let server: ReturnType<typeof Bun.serve>;
beforeAll(() => {
  cwd = mkdtempSync(join(tmpdir(), "ext-escapes-"));
  server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    fetch: () =>
      Response.json({ extension: { id: HOSTILE_ID, name: "x\x1b[31m", status: "draft\x07" } }, { status: 201 }),
  });
});
afterAll(() => {
  server.stop(true);
  rmSync(cwd, { recursive: true, force: true });
});

test("ext extensions create: the server's id, name and status are escaped; the next command quotes the id", async () => {
  const r = await runCli(["extensions", "create", "--name", "x", "--target", `http://127.0.0.1:${server.port}`], {
    cwd,
    env: { EXT_API_KEY: "ext_k" },
  });
  expect(r.stderr).toBe("");
  expect(hasControl(r.stdout)).toBe(false);
  expect(r.stdout).toContain("ext_1\\x1b]0;OWNED\\x07\\x1b[2J $(touch /tmp/owned)");
  expect(r.stdout).toContain("--extension 'ext_1\\x1b]0;OWNED\\x07\\x1b[2J $(touch /tmp/owned)' --version 1.0.0");
});

test("deploy's wait notice escapes the version id and label, and quotes the id in the command", () => {
  const lines = waitNotice({
    versionId: HOSTILE_ID,
    label: "1.0.0\x1b[2J",
    timeoutSeconds: 5,
  });
  expect(hasControl(lines.join("\n"))).toBe(false);
  expect(lines).toContain("  - ext versions approve 'ext_1\\x1b]0;OWNED\\x07\\x1b[2J $(touch /tmp/owned)'");
});

test("ext logs escapes every value of an entry the server gave, its time, status and duration too", () => {
  const hostile = "\x1b]0;PWN\x07\x1b[31m\n FORGED";
  const entry = {
    id: 1,
    at: `2026-11-28T00:00:00.000Z${hostile}`,
    method: `GET${hostile}`,
    path: `/developer/v1/extensions${hostile}`,
    status: `200${hostile}`,
    errorCode: `e${hostile}`,
    accountId: `acc${hostile}`,
    durationMs: `1${hostile}`,
  } as unknown as Parameters<typeof logLine>[0];
  const printed = logLine(entry, false);
  expect(hasControl(printed)).toBe(false);
  expect(printed).not.toContain("\n");
  expect(printed).toContain("2026-11-28T00:00:00.000Z\\x1b]0;PWN\\x07");
});
