/**
 * The files the parity tools write, against a link planted where they write: `ext proxy --report FILE` (it
 * once wrote `${FILE}.${pid}.tmp` with a plain write that follows links) and `ext conformance --junit FILE`
 * (a plain write to FILE, 0644). A link at any name either tool uses is never written through; the reports
 * are 0600. Planted by this user here (the other-user version, in a shared sticky folder, is
 * test/binary/outbound-two-users.slow.test.ts).
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import {
  lstatSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { startProxy } from "../../tools/conformance/proxy";
import { DEMO_KEY, startTestEmulator, stopTestEmulator } from "../helpers/emulator";
import { extBinary, runCli } from "../helpers/run-cli";

const VICTIM_TEXT = "# the owner's shell start-up file\nexport PATH=$PATH\n";

let dir: string;
let victim: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "ext-report-files-"));
  victim = join(mkdtempSync(join(tmpdir(), "ext-report-victim-")), ".bashrc");
});
afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
  rmSync(resolve(victim, ".."), { recursive: true, force: true });
});

function freshVictim(): void {
  writeFileSync(victim, VICTIM_TEXT, { mode: 0o644 });
}

describe("ext proxy --report", () => {
  test("a link planted at the old predictable temporary name is not written through; the report is 0600", async () => {
    freshVictim();
    const upstream = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: () => Response.json({ extensions: [] }) });
    const report = join(dir, "proxy-report.json");
    // The name the proxy used to write first, in this process (the proxy runs in this test's process).
    symlinkSync(victim, `${report}.${process.pid}.tmp`);
    // And a link at the report's own name: replaced by the report, never followed.
    const linkedReport = join(dir, "linked-report.json");
    symlinkSync(victim, linkedReport);
    for (const file of [report, linkedReport]) {
      const proxy = await startProxy({ upstream: `http://127.0.0.1:${upstream.port}`, reportFile: file });
      try {
        const r = await fetch(`${proxy.url}/developer/v1/extensions`, {
          method: "POST",
          body: '{"name":"$(touch /tmp/pwned)"}',
          headers: { "content-type": "application/json", authorization: "Bearer ext_k" },
        });
        await r.text();
        await proxy.settled();
      } finally {
        await proxy.stop();
      }
      expect(readFileSync(victim, "utf8")).toBe(VICTIM_TEXT);
      expect(lstatSync(file).isFile()).toBe(true);
      expect(statSync(file).mode & 0o777).toBe(0o600);
      expect(JSON.parse(readFileSync(file, "utf8")).exchanges).toBe(1);
    }
    upstream.stop(true);
    // No temporary file is left behind beside the report.
    expect(readdirSync(dir).filter((n) => n.endsWith(".tmp") && !n.includes(String(process.pid)))).toEqual([]);
  });

  test("a report that cannot be put in place is an error the user sees, not swallowed", async () => {
    const upstream = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: () => Response.json({ extensions: [] }) });
    // A folder where the report should be: the rename into place fails.
    const report = mkdtempSync(join(dir, "a-folder-"));
    writeFileSync(join(report, "keep"), "");
    const problems: string[] = [];
    const proxy = await startProxy({
      upstream: `http://127.0.0.1:${upstream.port}`,
      reportFile: report,
      onReportError: (message) => problems.push(message),
    });
    try {
      await (await fetch(`${proxy.url}/developer/v1/extensions`)).text();
      await proxy.settled();
    } finally {
      await proxy.stop().catch((e) => problems.push(`stop: ${(e as Error).message}`));
      upstream.stop(true);
    }
    expect(problems.length).toBeGreaterThan(0);
    expect(problems[0]).toContain(`cannot write the report to ${report}`);
  });
});

describe("ext proxy --report with --save-profile, neither writable", () => {
  test("on stop, each file that could not be written is named, and the profile is not said to be saved", async () => {
    const upstream = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: () => Response.json({ extensions: [] }) });
    // A folder in the way of each file: neither can be put in place.
    const [report, profile] = ["report", "profile"].map((name) => {
      const path = mkdtempSync(join(dir, `${name}-in-the-way-`));
      writeFileSync(join(path, "keep"), "");
      return path;
    });
    const proc = Bun.spawn(
      [extBinary(), "proxy", "--upstream", `http://127.0.0.1:${upstream.port}`, "--port", "0"].concat([
        "--report",
        report!,
        "--save-profile",
        profile!,
      ]),
      { cwd: resolve(import.meta.dir, "../.."), stdout: "pipe", stderr: "pipe" },
    );
    try {
      const reader = proc.stdout.getReader();
      let first = "";
      while (!first.includes("\n")) first += new TextDecoder().decode((await reader.read()).value);
      const url = first.match(/listening on (http:\/\/127\.0\.0\.1:\d+)/)![1]!;
      // --save-profile learns by replaying in the shadow: the line says it runs, as the report does.
      expect(first).toContain("(shadow: an in-process emulator)");
      await (
        await fetch(`${url}/developer/v1/extensions`, { headers: { authorization: `Bearer ${DEMO_KEY}` } })
      ).text();
      proc.kill("SIGINT");
      const [stderr, code] = await Promise.all([new Response(proc.stderr).text(), proc.exited]);
      expect(code, stderr).toBe(1);
      expect(stderr).toContain(`error: cannot write the report to ${report} (a folder is in the way)`);
      expect(stderr).toContain(`error: cannot write the profile to ${profile} (a folder is in the way)`);
      expect(stderr).toContain(`NOT saved: it could not be written to ${profile}`);
      expect(stderr).not.toContain("saved to");
    } finally {
      proc.kill();
      upstream.stop(true);
    }
  });
});

describe("ext conformance --junit", () => {
  const conformance = (junit: string) =>
    runCli(["conformance", "--target", "http://127.0.0.1:9/developer/v1", "--dry-run", "--junit", junit]);

  test("a link planted at FILE is replaced by the report, never followed; the report is 0600", async () => {
    freshVictim();
    const junit = join(dir, "conformance.xml");
    symlinkSync(victim, junit);
    const r = await conformance(junit);
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    expect(readFileSync(victim, "utf8")).toBe(VICTIM_TEXT);
    expect(lstatSync(junit).isFile()).toBe(true);
    expect(statSync(junit).mode & 0o777).toBe(0o600);
    expect(readFileSync(junit, "utf8")).toContain("<testsuite");
  });

  test("a report that cannot be written is an error naming the file", async () => {
    const r = await conformance(join(dir, "no-such-folder", "conformance.xml"));
    expect(r.stderr).toContain(`cannot write the JUnit report to ${join(dir, "no-such-folder", "conformance.xml")}`);
    expect(r.code).toBe(1);
  });
});

describe("ext conformance --junit with --save-profile", () => {
  test("a JUnit file that cannot be written does not stop the profile from being saved; the command fails naming it", async () => {
    const emu = await startTestEmulator();
    try {
      const junit = join(dir, "no-such-folder", "conformance.xml");
      const profile = join(dir, `platform-${Math.random().toString(36).slice(2)}.json`);
      const r = await runCli(
        ["conformance", "--target", `${emu.url}/developer/v1`, "--junit", junit, "--save-profile", profile],
        { env: { EXT_API_KEY: DEMO_KEY } },
      );
      expect(r.stderr).toContain(`cannot write the JUnit report to ${junit}`);
      expect(r.code).toBe(1);
      expect(lstatSync(profile).isFile()).toBe(true);
      expect(r.stdout).toContain(`saved to ${profile}`);
    } finally {
      await stopTestEmulator(emu);
    }
  }, 60_000);
});
