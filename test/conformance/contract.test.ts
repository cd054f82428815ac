/**
 * The emulator's own contract tests are `ext conformance`'s checks: one run against an in-process
 * emulator per configuration, then one test per check, so the command and the project cannot disagree.
 * Every spec check passes and every "not shown" choice is the one ext records (docs/behaviour.md).
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import demo from "../../fixtures/demo.json" with { type: "json" };
import { runConformance } from "../../tools/conformance/run";
import { RATE_LIMITS } from "../../tools/conformance/spec";
import type { RunReport } from "../../tools/conformance/types";
import { type Emulator, type Fixture, startEmulator } from "../../tools/helper/start-emulator";

const READ_ONLY_KEY = demo.accounts[0]!.apiKeys.find((k) => !k.scopes.includes("*"))!.key;
// The ids every run must report, whatever it skips: a check that silently vanished fails here.
const EXPECTED_IDS = [
  "auth.missing-key",
  "auth.invalid-key",
  "auth.malformed",
  "auth.forbidden-patch",
  "auth.forbidden-secret",
  "extensions.list",
  "extensions.create",
  "extensions.get",
  "extensions.list-created",
  "extensions.patch",
  "extensions.delete",
  "extensions.create-invalid",
  "extensions.patch-invalid",
  "extensions.get-missing",
  "extensions.patch-missing",
  "extensions.delete-missing",
  "versions.list-empty",
  "versions.submit",
  "versions.list",
  "versions.submit-invalid",
  "versions.list-missing",
  "installs.get",
  "installs.get-missing",
  "limits.get",
  "limits.get-missing",
  "secrets.put",
  "secrets.list",
  "secrets.replace",
  "secrets.put-invalid",
  "secrets.delete",
  "secrets.list-after-delete",
  "secrets.list-missing",
  "secrets.never-returned",
  "rate-limits.get",
  "cleanup.list-restored",
];

for (const rateLimits of [true, false]) {
  describe(`ext conformance against ext (rate limits ${rateLimits ? "on" : "off"})`, () => {
    let emulator: Emulator;
    let report: RunReport;
    let listBefore: unknown;
    beforeAll(async () => {
      // The demo fixture as it is, keys included (given as an object, they are kept; "demo" gets fresh ones).
      emulator = await startEmulator({ rateLimits, fixture: structuredClone(demo) as Fixture });
      const { data } = await emulator.client.GET("/developer/v1/extensions");
      listBefore = data;
      report = await runConformance(
        { url: emulator.baseUrl, apiKey: emulator.apiKey, readOnlyKey: READ_ONLY_KEY },
        { includeRateLimits: rateLimits },
      );
    }, 60_000);
    afterAll(() => emulator.stop());

    test("the run reports every check", () => {
      expect(report.results.map((r) => r.id)).toEqual(expect.arrayContaining(EXPECTED_IDS));
      expect(report.interrupted).toBe(false);
      expect(report.cleanup.removed).toBe(true);
    });

    test("the account's extension list is as the run found it", async () => {
      // The rate-limit check spent the GET window: move the emulator's clock past it.
      if (rateLimits) await emulator.advanceClock(61);
      const { data } = await emulator.client.GET("/developer/v1/extensions");
      expect(data).toEqual(listBefore as typeof data);
    });

    test("no key appears in the report", () => {
      const text = JSON.stringify(report);
      expect(text).not.toContain(emulator.apiKey);
      expect(text).not.toContain(READ_ONLY_KEY);
    });

    for (const id of EXPECTED_IDS) {
      test(id, () => {
        const result = report.results.find((r) => r.id === id);
        expect(result).toBeDefined();
        if (id === "rate-limits.get" && !rateLimits) return expect(result!.outcome).toBe("skipped");
        expect({ id, outcome: result!.outcome, note: result!.note }).toEqual({
          id,
          outcome: "passed",
          note: undefined,
        });
      });
    }

    test("every 'not shown' choice is the one ext records", () => {
      const choices = report.results.filter((r) => r.kind === "choice");
      expect(choices.length).toBeGreaterThanOrEqual(15);
      // With its rate limits off ext sends no rate headers: the one choice that then differs from ext's default.
      const differing = choices.filter((r) => r.outcome !== "passed").map((r) => r.id);
      expect(differing).toEqual(rateLimits ? [] : ["choice.rate-headers"]);
    });
  });
}

test("a run stays well inside the spec's rate limits (counted from --dry-run)", async () => {
  const report = await runConformance({ url: "http://127.0.0.1:9", apiKey: "k", readOnlyKey: "r" }, { dryRun: true });
  const count = (method: string, tail?: string) =>
    report.requests.filter((r) => r.method === method && (tail === undefined || r.path.endsWith(tail))).length;
  const creates = report.requests.filter((r) => r.method === "POST" && r.path === "/developer/v1/extensions").length;
  expect(creates).toBeLessThanOrEqual(3); // of 10 an hour: three runs an hour fit
  expect(count("POST", "/versions")).toBeLessThanOrEqual(2); // of 30 an hour
  expect(count("GET")).toBeLessThanOrEqual(RATE_LIMITS.get.limit / 4);
  expect(count("DELETE")).toBeLessThanOrEqual(RATE_LIMITS.delete.limit / 4);
  expect(count("PUT") + count("PATCH")).toBeLessThanOrEqual(15); // ext's 60 a minute; the spec shows none
});
