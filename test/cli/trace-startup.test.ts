/**
 * `ext serve --trace-startup` (or EXT_TRACE_STARTUP=1): each start-up phase on stderr, in order, with its
 * time since the process began, the first response the app serves included. Times are printed, never asserted against a
 * bound (performance lives in `npm run bench`); only their order and shape are checked.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { join } from "node:path";
import type { Subprocess } from "bun";
import { cleanEnv } from "../helpers/clean-env";
import { readUntil } from "../helpers/read-until";
import { extBinary } from "../helpers/run-cli";

const ROOT = join(import.meta.dir, "../..");

const spawned: Subprocess[] = [];
afterAll(() => {
  for (const p of spawned) if (p.exitCode === null) p.kill("SIGKILL");
});

const PHASES = [
  "CLI modules loaded",
  "server modules loaded (Elysia, TypeBox, drizzle)",
  "data directory, secrets key, SQLite opened and migrated",
  "services built",
  "app built (routes, schemas, hooks)",
  "listening",
  "ready (ready file, server.json, banner written)",
  "first response (/healthz 200)",
];

async function traceOf(args: string[], extraEnv: Record<string, string> = {}): Promise<string[]> {
  const proc = Bun.spawn([extBinary(), "serve", "--memory", "--port", "0", "--log-level", "warn", ...args], {
    cwd: ROOT,
    stdout: "pipe",
    stderr: "pipe",
    env: cleanEnv(extraEnv),
  });
  spawned.push(proc);
  const out = await readUntil(proc.stdout as ReadableStream<Uint8Array>, /listening on (\S+)\n/);
  const baseUrl = /listening on (\S+)\n/.exec(out)![1]!;
  // /healthz is an app route (the Host check applies to it): the first response the app serves.
  expect((await fetch(baseUrl.replace("/developer/v1", "/healthz"))).status).toBe(200);
  const err = await readUntil(proc.stderr as ReadableStream<Uint8Array>, /first response[^\n]*\n/);
  proc.kill("SIGTERM");
  await proc.exited;
  return err.split("\n").filter((l) => l.startsWith("[startup]"));
}

describe("ext serve --trace-startup", () => {
  test("prints every phase once, in order, each with its time since the process began, its own duration and its CPU time", async () => {
    const lines = await traceOf(["--trace-startup"]);
    const parsed = lines.map((l) => /^\[startup\]\s+([\d.]+) ms {2}(.+) \(\+([\d.]+) ms, cpu \+([\d.]+) ms\)$/.exec(l));
    expect(parsed.every((m) => m !== null)).toBe(true);
    expect(parsed.map((m) => m![2])).toEqual(PHASES);
    const at = parsed.map((m) => Number(m![1]));
    for (let i = 1; i < at.length; i++) expect(at[i]!).toBeGreaterThanOrEqual(at[i - 1]!);
  });

  test("EXT_TRACE_STARTUP=1 does the same; without either, nothing is printed", async () => {
    expect((await traceOf([], { EXT_TRACE_STARTUP: "1" })).length).toBe(PHASES.length);
    const proc = Bun.spawn([extBinary(), "serve", "--memory", "--port", "0", "--log-level", "warn"], {
      cwd: ROOT,
      stdout: "pipe",
      stderr: "pipe",
      env: cleanEnv(),
    });
    spawned.push(proc);
    const out = await readUntil(proc.stdout as ReadableStream<Uint8Array>, /listening on (\S+)\n/);
    await (await fetch(/listening on (\S+)\n/.exec(out)![1]!.replace("/developer/v1", "/healthz"))).arrayBuffer();
    proc.kill("SIGTERM");
    await proc.exited;
    expect(await new Response(proc.stderr as ReadableStream).text()).not.toContain("[startup]");
  });
});
