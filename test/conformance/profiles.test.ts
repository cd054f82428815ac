/**
 * Parity you can adopt: for stand-ins that differ from ext in known ways of every kind a profile can hold,
 * conformance against the stand-in and conformance against `ext serve --profile <the profile it saved>`
 * report the same differences, check for check, and save the same profile; a client written for the spec's
 * shape fails against the profiled emulator exactly where it fails against the stand-in. What a profile
 * cannot hold is reported as such and left out.
 */
import { afterAll, describe, expect, test } from "bun:test";
import type { Profile } from "../../server/profile/model";
import { runConformance } from "../../tools/conformance/run";
import type { RunReport } from "../../tools/conformance/types";
import { type Emulator, startEmulator } from "../../tools/helper/start-emulator";
import { specClientRun } from "./spec-client";
import { type Difference, HOSTILE, SCRIPT, STAND_INS, type StandIn, startStandIn, UNEXPRESSIBLE } from "./stand-ins";

const stops: (() => unknown)[] = [];
afterAll(async () => {
  for (const stop of stops) await stop();
});
async function emulator(profile?: Profile): Promise<Emulator> {
  const e = await startEmulator({ rateLimits: true, ...(profile ? { profile } : {}) });
  stops.push(() => e.stop());
  return e;
}
async function standIn(differences: Parameters<typeof startStandIn>[1]): Promise<{ e: Emulator; s: StandIn }> {
  const e = await emulator();
  const s = startStandIn(e.url, differences);
  stops.push(() => s.stop());
  return { e, s };
}

/**
 * Conformance against a stand-in, run once per set of differences for the file and shared by the tests that read
 * its report, its profile or the stand-in it ran against (each used to make its own, to the same end).
 */
const observedRuns = new Map<Difference[], Promise<{ e: Emulator; s: StandIn; observed: RunReport }>>();
function observe(differences: Difference[]) {
  let run = observedRuns.get(differences);
  if (!run) {
    run = standIn(differences).then(async ({ e, s }) => ({
      e,
      s,
      observed: await runConformance({ url: s.url, apiKey: e.apiKey }),
    }));
    observedRuns.set(differences, run);
  }
  return run;
}

/**
 * ext itself, with no profile, once for the file: what conformance and the spec's client find against it is the
 * same whichever stand-in a test compares it with.
 */
let plainRun: Promise<{ report: RunReport; client: string[] }> | undefined;
function plain() {
  plainRun ??= (async () => {
    const [forRun, forClient] = [await emulator(), await emulator()];
    return {
      report: await runConformance({ url: forRun.url, apiKey: forRun.apiKey }),
      client: await specClientRun(forClient.baseUrl, forClient.apiKey),
    };
  })();
  return plainRun;
}

/** What a run found, check by check, without the values two servers generate differently. */
const normal = (s: string | undefined) =>
  (s ?? "")
    .replace(/\b(ext|ver)_[0-9A-Za-z]{26}\b/g, "$1_<id>")
    .replace(/\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z/g, "<time>")
    .replace(/CONFORMANCE_[0-9A-F]{12}|ext-conformance-scratch-[0-9a-f]{12}/g, "<scratch>");
const checks = (r: RunReport) => r.results.map((x) => `${x.id} ${x.outcome} ${normal(x.note)}`).sort();
const entriesOf = (p: Profile) => p.entries.map(({ evidence: _, ...e }) => JSON.stringify(e)).sort();

for (const [name, differences] of Object.entries(STAND_INS)) {
  describe(`a stand-in that differs in ${name}`, () => {
    test("conformance against it and against ext serve --profile <what it saved> report the same, check for check", async () => {
      const { observed } = await observe(differences);
      const profile = observed.observed.profile;
      expect(profile.entries.length).toBeGreaterThanOrEqual(differences.length);
      expect(observed.observed.leftOut).toEqual([]);
      const profiled = await emulator(profile);
      const again = await runConformance({ url: profiled.url, apiKey: profiled.apiKey });
      expect(checks(again)).toEqual(checks(observed));
      expect(again.observed.causes.map((c) => c.cause)).toEqual(observed.observed.causes.map((c) => c.cause));
      expect(entriesOf(again.observed.profile)).toEqual(entriesOf(profile));
      // The stand-in does differ: a run against ext itself finds none of it.
      const spec = (await plain()).report;
      expect(spec.observed.profile.entries).toEqual([]);
      expect(checks(spec)).not.toEqual(checks(observed));
    }, 60_000);

    test("a client written for the spec's shape fails against the profiled emulator exactly where it fails against the stand-in", async () => {
      const { e, s, observed } = await observe(differences);
      const profile = observed.observed.profile;
      const against = await specClientRun(`${s.url}/developer/v1`, e.apiKey);
      const profiled = await emulator(profile);
      expect(await specClientRun(profiled.baseUrl, profiled.apiKey)).toEqual(against);
      // …and it does fail somewhere: against ext itself every step is fine.
      const spec = (await plain()).client;
      expect(spec.filter((line) => line.includes(": fails"))).toEqual([]);
      expect(against.filter((line) => line.includes(": fails")).length).toBeGreaterThan(0);
    }, 60_000);
  });
}

test("the listSecrets case: the client that was green on ext gets undefined keys against the platform and the profiled emulator alike", async () => {
  const profile = (await observe(STAND_INS.envelopes)).observed.observed.profile;
  const profiled = await emulator(profile);
  const lines = await specClientRun(profiled.baseUrl, profiled.apiKey);
  // The user's bug: `keys` read from the answer is undefined, as on the platform.
  expect(lines.find((l) => l.startsWith("listSecrets: count:"))).toStartWith(
    "listSecrets: count: fails (TypeError: undefined is not an object",
  );
  expect(profile.entries).toContainEqual(
    expect.objectContaining({
      operation: "GET /developer/v1/extensions/{id}/secrets",
      answer: 200,
      difference: "field-renamed",
      path: "keys",
      observed: "names",
    }),
  );
}, 60_000);

test("what a profile cannot hold is reported as such and left out, never approximated", async () => {
  const { e, s } = await standIn(UNEXPRESSIBLE);
  const report = await runConformance({ url: s.url, apiKey: e.apiKey });
  const { profile, leftOut } = report.observed;
  // The secret PUT's status is held; its body, and a new extension's status, are not.
  expect(profile.entries.map((x) => `${x.operation} ${x.answer} ${x.difference}`)).toEqual([
    "PUT /developer/v1/extensions/{id}/secrets/{key} 204 status",
  ]);
  expect(leftOut).toEqual([
    { cause: "the target sends a body with its 200 where ext sends none", checks: ["secrets.put", "secrets.replace"] },
    { cause: 'status should be draft, got "in_review"', checks: ["extensions.create"] },
  ]);
}, 60_000);

test("a hostile target's page is never saved: its field is data in a JSON answer, its Content-Type and challenge are left out", async () => {
  const { e, s } = await standIn(HOSTILE);
  const report = await runConformance({ url: s.url, apiKey: e.apiKey });
  const { profile, leftOut } = report.observed;
  expect(profile.entries.filter((x) => "header" in x)).toEqual([]);
  expect(profile.entries.some((x) => x.difference === "field-added" && x.observed === SCRIPT)).toBe(true);
  expect(leftOut.map((l) => l.cause)).toEqual(
    expect.arrayContaining([
      "the target's 401 answer sends content-type: Content-Type text/html; charset=utf-8 is not a JSON media type: a profile keeps every answer JSON (application/json, or application/…+json)",
      "the target's 401 answer sends www-authenticate: WWW-Authenticate: the scheme is Bearer (the developer API's keys), not Basic",
    ]),
  );
  // Served with what it saved, the 401 stays JSON, and a browser may neither sniff it nor run anything in it.
  const profiled = await emulator(profile);
  const answer = await fetch(`${profiled.url}/developer/v1/extensions`);
  expect(answer.status).toBe(401);
  expect(answer.headers.get("content-type")).toStartWith("application/json");
  expect(answer.headers.get("x-content-type-options")).toBe("nosniff");
  expect(answer.headers.get("content-security-policy")).toBe("default-src 'none'; frame-ancestors 'none'");
  expect(answer.headers.get("set-cookie")).toBeNull();
  expect(((await answer.json()) as { x?: string }).x).toBe(SCRIPT);
}, 60_000);
