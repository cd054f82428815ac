/**
 * The target's rate limits are respected, not reported: a run uses at most one successful create; a target
 * with 2 creates left in its hour gets no more than 2 create requests and no 429; a target at its limit, or
 * whose GET window cannot hold the run, stops the run before anything is created, saying when to retry (exit
 * 75); a 429 midway stops the run, which cleans up and says where it stopped — never a difference.
 */
import { afterEach, expect, test } from "bun:test";
import { textReport } from "../../tools/conformance/report";
import { runConformance } from "../../tools/conformance/run";
import { type Emulator, startEmulator } from "../../tools/helper/start-emulator";
import { runCli } from "../helpers/run-cli";
import { type StandIn, startStandIn } from "./stand-ins";

const LIST = "/developer/v1/extensions";

let emulator: Emulator;
let standIn: StandIn | null = null;
afterEach(async () => {
  standIn?.stop();
  standIn = null;
  await emulator.stop();
});

/** Spends `n` of the account's creates this hour, as the user's own traffic would. */
async function spendCreates(n: number): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < n; i++) {
    const { data } = await emulator.client.POST(LIST, { body: { name: `Mine ${i}` } });
    ids.push(data!.extension.id);
  }
  return ids;
}

const creates = async () =>
  (await emulator.requests(500))
    .filter((r) => r.method === "POST" && r.path === LIST)
    .map((r) => r.status)
    .reverse();

test("2 creates left in the hour: one successful create, no 429, the optional create not sent", async () => {
  emulator = await startEmulator({ rateLimits: true });
  const mine = await spendCreates(8);
  const report = await runConformance({ url: emulator.url, apiKey: emulator.apiKey });
  expect(report.rateLimited).toBeUndefined();
  // The user's 8, then the refused probe and the scratch create.
  expect(await creates()).toEqual([...mine.map(() => 201), 422, 201]);
  expect({ ...report.results.find((r) => r.id === "choice.required-fields") }).toMatchObject({
    outcome: "skipped",
    note: expect.stringMatching(/^not sent: the target.s POST \/extensions window has no room left/),
  });
  expect(report.results.filter((r) => r.kind === "spec" && r.outcome === "differed")).toEqual([]);
  expect(report.cleanup).toMatchObject({ removed: true });
}, 30_000);

test("a target already at its limit: exit 75 with the wait, and no extension created", async () => {
  emulator = await startEmulator({ rateLimits: true });
  await spendCreates(10);
  const before = (await emulator.client.GET(LIST)).data;
  const { stdout, code } = await runCli(["conformance", "--target", emulator.baseUrl], {
    env: { EXT_API_KEY: emulator.apiKey },
  });
  expect(code).toBe(75);
  expect(stdout).toMatch(
    /\nrate-limited at extensions\.create-invalid; retry after \d+ s \(about \d\d:\d\d\) — the target answered 429 \(POST \/developer\/v1\/extensions\)\n/,
  );
  // The one create request the run sent is the probe the spec refuses anyway; nothing was created.
  expect((await creates()).slice(10)).toEqual([429]);
  expect((await emulator.client.GET(LIST)).data).toEqual(before!);
  expect(stdout).not.toContain("DIFFERS");
}, 30_000);

test("a GET window that cannot hold the run: it refuses to start, before any write", async () => {
  emulator = await startEmulator({ rateLimits: true });
  for (let i = 0; i < 112; i++) await emulator.client.GET(LIST);
  const report = await runConformance({ url: emulator.url, apiKey: emulator.apiKey });
  // A copy: an asymmetric matcher inside toMatchObject can be left behind in the object it matched.
  expect({ ...report.rateLimited }).toMatchObject({
    check: "extensions.create-invalid",
    reason: expect.stringMatching(
      /^the target's GET endpoints window has 7 requests left and this run needs \d+; nothing more was sent$/,
    ),
    retryAfterSeconds: expect.any(Number),
  });
  expect(report.requests.filter((r) => r.method !== "GET")).toEqual([]);
  expect(textReport(report).join("\n")).toMatch(
    /rate-limited at extensions\.create-invalid; retry after \d+ s \(about \d\d:\d\d\)/,
  );
}, 30_000);

test("a 429 midway stops the run: it cleans up, names the check, and reports no difference for it", async () => {
  emulator = await startEmulator({ rateLimits: true });
  standIn = startStandIn(emulator.url, [
    ({ method, path }, a) =>
      method === "PATCH" && !path.includes("ext_0000")
        ? {
            status: 429,
            headers: new Headers({ "content-type": "application/json", "retry-after": "120" }),
            body: { error: { code: "rate_limited", message: "Too many requests.", status: 429 } },
          }
        : a,
  ]);
  const report = await runConformance({ url: standIn.url, apiKey: emulator.apiKey });
  expect({ ...report.rateLimited }).toMatchObject({
    check: "extensions.patch",
    request: expect.stringMatching(/^PATCH \/developer\/v1\/extensions\/ext_/),
    retryAfterSeconds: 120,
  });
  expect(report.results.find((r) => r.id === "extensions.patch")).toBeUndefined();
  expect(report.results.filter((r) => r.outcome === "differed")).toEqual([]);
  expect(report.cleanup).toMatchObject({ removed: true });
  const { data } = await emulator.client.GET(LIST);
  expect(data!.extensions.filter((e) => e.name.startsWith("ext-conformance-scratch"))).toEqual([]);
  const about = new Date(report.rateLimited!.retryAt!).toTimeString().slice(0, 5);
  expect(textReport(report)).toContain(
    `rate-limited at extensions.patch; retry after 120 s (about ${about}) — the target answered 429 (${report.rateLimited!.request})`,
  );
}, 30_000);
