/**
 * The profile round-trips: saved by conformance, saved by the proxy from the same traffic, edited by hand,
 * loaded — the same entries and the same answers. Checked against the profile, the unchanged stand-in
 * confirms every entry; changed back to ext's answers, the entries it answered for are stale (exit 1).
 */
import { afterAll, beforeAll, beforeEach, describe, expect, test } from "bun:test";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { readProfileFile } from "../../server/profile/load";
import type { Profile } from "../../server/profile/model";
import { startProxy } from "../../tools/conformance/proxy";
import { conforms, textReport } from "../../tools/conformance/report";
import { runConformance } from "../../tools/conformance/run";
import { type Emulator, startEmulator } from "../../tools/helper/start-emulator";
import { cleanEnv } from "../helpers/clean-env";
import { extBinary } from "../helpers/run-cli";
import { specClientRun } from "./spec-client";
import { STAND_INS, type StandIn, startStandIn } from "./stand-ins";

const ROOT = resolve(import.meta.dir, "../..");
const DIFFERENCES = [...STAND_INS.envelopes, ...STAND_INS.fields];

const dir = mkdtempSync(join(tmpdir(), "ext-profiles-"));
const stops: (() => unknown)[] = [];
let upstream: Emulator;
let standIn: StandIn;
let byConformance: Profile;
let byProxy: Profile;
/** The proxy's report's `shadow` when only a profile was asked for (the profile is learned by replaying). */
let shadowInReport: unknown;
beforeAll(async () => {
  upstream = await startEmulator({ rateLimits: true });
  standIn = startStandIn(upstream.url, DIFFERENCES);
  stops.push(
    () => standIn.stop(),
    () => upstream.stop(),
  );
  const file = join(dir, "by-proxy.json");
  const proxy = await startProxy({ upstream: standIn.url, profileFile: file, reportFile: join(dir, "report.json") });
  const run = await runConformance({ url: proxy.url, apiKey: upstream.apiKey });
  await proxy.stop();
  shadowInReport = JSON.parse(readFileSync(join(dir, "report.json"), "utf8")).shadow;
  byConformance = run.observed.profile;
  byProxy = readProfileFile(file).compiled.profile;
}, 60_000);
afterAll(async () => {
  for (const stop of stops) await stop();
});

const entries = (p: Profile) => p.entries.map(({ evidence: _, note: __, ...e }) => JSON.stringify(e)).sort();

describe("round trip", () => {
  test("conformance and the proxy save the same entries from the same traffic", () => {
    expect(byConformance.entries.length).toBeGreaterThanOrEqual(DIFFERENCES.length);
    expect(entries(byProxy)).toEqual(entries(byConformance));
    // Copies: an asymmetric matcher inside toMatchObject can be left behind in the object it matched.
    const [proxied, checked] = [byProxy.entries[0]!.evidence!, byConformance.entries[0]!.evidence!];
    expect({ ...proxied }).toMatchObject({ source: "proxy", exchange: expect.stringMatching(/ → \d{3}$/) });
    expect({ ...checked }).toMatchObject({ source: "conformance", check: expect.any(String) });
  });

  test("the proxy's report says its exchanges were replayed in the shadow when it saves a profile", () => {
    expect(shadowInReport).toBe(true);
  });

  test("saved by conformance, by the proxy, edited by hand, loaded: the same answers", async () => {
    // By hand: reordered, evidence dropped, a note added, indented otherwise.
    const edited = {
      profileVersion: 1,
      description: "Edited by hand",
      entries: [...byConformance.entries].reverse().map(({ evidence: _, ...e }) => ({ ...e, note: "seen in CI" })),
    };
    const editedFile = join(dir, "edited.json");
    writeFileSync(editedFile, JSON.stringify(edited, null, 4));
    const answers: string[][] = [];
    for (const profile of [byConformance, byProxy, editedFile]) {
      const e = await startEmulator({ rateLimits: true, profile });
      stops.push(() => e.stop());
      answers.push(await specClientRun(e.baseUrl, e.apiKey));
    }
    expect(answers[1]).toEqual(answers[0]!);
    expect(answers[2]).toEqual(answers[0]!);
    expect(answers[0]).toEqual(await specClientRun(`${standIn.url}/developer/v1`, upstream.apiKey));
  }, 60_000);
});

describe("--profile: stale entries after the platform changes back", () => {
  // Each run spends three of the stand-in's ten creates an hour: its clock moves past the window first.
  beforeEach(() => upstream.advanceClock(3601));
  test("against the unchanged stand-in every entry the run exercises is confirmed, and the run conforms", async () => {
    const report = await runConformance({ url: standIn.url, apiKey: upstream.apiKey }, { profile: byConformance });
    expect(report.observed.check).toMatchObject({ stale: [], added: [], notExercised: [] });
    expect(report.observed.check!.confirmed).toHaveLength(byConformance.entries.length);
    expect(report.results.filter((r) => r.kind === "spec" && r.outcome === "differed").every((r) => r.asProfiled)).toBe(
      true,
    );
    expect(conforms(report)).toBe(true);
  }, 60_000);

  test("changed back to ext's answers: each entry is stale, on the checks that answered for it; exit 1", async () => {
    const file = join(dir, "saved.json");
    writeFileSync(file, JSON.stringify(byConformance));
    standIn.differ([]);
    try {
      const report = await runConformance({ url: standIn.url, apiKey: upstream.apiKey }, { profile: byConformance });
      expect(report.observed.check!.stale).toHaveLength(byConformance.entries.length);
      expect(report.results.find((r) => r.id === "secrets.list")!.stale).toEqual([
        "GET /developer/v1/extensions/{id}/secrets 200: keys is sent as names: ext's name for it is keys",
      ]);
      expect(conforms(report)).toBe(false);
      await upstream.advanceClock(3601);
      expect(textReport(report)).toContain(
        "  STALE  GET /developer/v1/extensions/{id}/secrets 200: keys is sent as names: ext's name for it is keys (the target no longer answers so)",
      );
      const proc = Bun.spawn(
        [extBinary(), "conformance", "--target", standIn.url, "--profile", file, "--junit", join(dir, "j.xml")],
        { cwd: ROOT, env: { ...cleanEnv(), EXT_API_KEY: upstream.apiKey }, stdout: "pipe", stderr: "pipe" },
      );
      const [stdout, code] = await Promise.all([new Response(proc.stdout).text(), proc.exited]);
      expect(code).toBe(1);
      expect(stdout).toContain("STALE    secrets.list: GET /extensions/:id/secrets lists names only: the profile says");
      const junit = readFileSync(join(dir, "j.xml"), "utf8");
      expect(junit).toContain('<failure message="stale profile entry: GET /developer/v1/extensions/{id}/secrets 200');
      // One test case per check, still.
      expect(junit.match(/<testcase /g)!.length).toBe(report.results.length);
    } finally {
      standIn.differ(DIFFERENCES);
    }
  }, 60_000);
});
