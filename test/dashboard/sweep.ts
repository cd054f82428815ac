/**
 * Every page of the dashboard in every state a user sees it in: no serious or critical axe violation, nothing off
 * the screen at 1280×800 or 390×844, in both colour schemes, and the README's screenshots. Run by
 * sweep.slow.test.ts, which serves the binary and first builds, through the API and `ext deploy`, what
 * dashboard.slow.test.ts's stories leave behind, so that every list has rows of every kind to look at: one such
 * start for every page (each start costs a server, a browser and two deploys).
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Browser } from "playwright-core";
import { adminFetch, type Built, run } from "../binary/helpers";
import {
  browserAvailable,
  CARD_SPILL,
  COLOUR_RULES,
  describeViolations,
  OFF_SCREEN,
  seriousViolations,
} from "../helpers/browser";
import {
  apiFetch,
  controlPost,
  countIs,
  DESKTOP,
  deployVersion,
  LONG_EXTENSION_ID,
  LONG_VERSION_ID,
  openPage,
  PHONE,
  RAW_VALIDATOR,
  REJECT_REASON,
  type Session,
  STEP_TIMEOUT_MS,
  shoot,
  startSession,
  stopSession,
  textHas,
  watch,
} from "./served";

/**
 * In the page: the elements reaching past the right edge of the screen. On a desktop a wide table scrolls inside
 * its own region; on a phone tables are cards, so only their visually hidden heading row may reach past it.
 */
const WIDER_THAN_SCREEN = `[...document.querySelectorAll("body *")]
  .filter((el) => el.getBoundingClientRect().right > innerWidth + 1 && (innerWidth < 700 ? !el.closest("thead") : !el.closest("table")))
  .map((el) => el.tagName.toLowerCase() + (el.id ? "#" + el.id : "") + (el.className ? "." + el.className : "") + " " + Math.round(el.getBoundingClientRect().right) + "px")`;

/** The ids of what the sweep made that some pages' addresses name. */
interface Made {
  bundleId: string;
  longRequestId: number;
}

/** `shot`: the README's screenshot of the page (desktop, light). */
const PAGES = {
  overview: { hash: () => "#/", shot: true },
  "api-keys": { hash: () => "#/keys", shot: true },
  extensions: { hash: () => "#/extensions", shot: true },
  extension: { hash: () => "#/extensions/ext_board", shot: true },
  limits: { hash: () => "#/limits", shot: true },
  "limit-requests": { hash: () => "#/limits/requests", shot: false },
  admin: { hash: () => "#/admin", shot: true },
  "admin-limits": { hash: () => "#/admin/limits", shot: false },
  "admin-overrides": { hash: () => "#/admin/overrides", shot: false },
  "admin-status": { hash: () => "#/admin/status", shot: false },
  "admin-clock": { hash: () => "#/admin/clock", shot: false },
  "admin-faults": { hash: () => "#/admin/faults", shot: true },
  "admin-state": { hash: () => "#/admin/state", shot: true },
  requests: { hash: () => "#/requests", shot: true },
  profile: { hash: () => "#/profile", shot: false },
  bundle: { hash: (m: Made) => `#/extensions/ext_board/versions/${m.bundleId}`, shot: false },
  request: { hash: (m: Made) => `#/requests/${m.longRequestId}`, shot: false },
  "extension-long-id": { hash: () => `?account=acc_other#/extensions/${LONG_EXTENSION_ID}`, shot: false },
  "version-rejected": {
    hash: () => `?account=acc_other#/extensions/${LONG_EXTENSION_ID}/versions/${LONG_VERSION_ID}`,
    shot: false,
  },
} satisfies Record<string, { hash: (m: Made) => string; shot: boolean }>;
export type PageName = keyof typeof PAGES;

/** Every page the sweep knows. */
const PAGE_NAMES = Object.keys(PAGES) as PageName[];

/** The pages also shot in the dark scheme for the README. */
const DARK_SHOTS: PageName[] = ["overview", "requests", "limits"];
/** Pages of cards whose dark scheme's colours axe also checks on a phone. */
const DARK_PHONE_AXE: PageName[] = ["api-keys", "admin", "requests"];
/** The README's phone screenshots. */
const PHONE_SHOTS: PageName[] = ["overview", "extension", "admin", "requests", "request"];
/** What each of these pages must show before anything is measured. */
const SHOWS: Partial<Record<PageName, string>> = {
  request: "A_SECRET_NAME_WITH_NO_BREAK_IN_IT_AT_ALL",
  "extension-long-id": REJECT_REASON,
  "version-rejected": REJECT_REASON,
};
/** The row buttons each list must show before anything is measured. */
const ROW_BUTTON: Partial<Record<PageName, RegExp>> = {
  admin: /^Approve Sound Board 2\.1\.0/,
  "admin-limits": /^Approve req_/,
  "admin-faults": /^Remove fault/,
};
/**
 * Each page is loaded once and looked at in every state: media queries apply live to a resized window and a
 * changed colour scheme. axe's rules do not depend on the width, so axe runs once per scheme (the dark one
 * changes colours only: its colour rules), and again on a phone where tables become cards.
 */
const STATES = [
  { scheme: "light", viewport: DESKTOP },
  { scheme: "light", viewport: PHONE },
  { scheme: "dark", viewport: PHONE },
  { scheme: "dark", viewport: DESKTOP },
] as const;

/** How long the sweep's start may take: the binary, a browser, a server, two deploys. */
const START_TIMEOUT_MS = 120_000;

/**
 * The sweep's tests: one per page, on the sweep `start` makes (the file names how: with
 * `startSweep(buildBinary(), launchBrowser())`, which also names it slow for test/meta/slow-tests.test.ts).
 */
export function describeSweep(start: () => Promise<Sweep>): void {
  describe.skipIf(!browserAvailable())("every page in Chromium against the compiled binary", () => {
    let sweep: Sweep | undefined;
    beforeAll(async () => {
      sweep = await start();
    }, START_TIMEOUT_MS);
    afterAll(() => sweep?.stop());
    for (const name of PAGE_NAMES)
      test(
        `${name}: no serious or critical axe violation; nothing off the screen at 1280×800 or 390×844; in both schemes`,
        () => sweep!.check(name),
        STEP_TIMEOUT_MS,
      );
  });
}

export interface Sweep {
  /** Loads the page and checks it in every state. */
  check(name: PageName): Promise<void>;
  stop(): Promise<void>;
}

/** Serves the fixture, logs in, and makes the state every page is looked at in. */
export async function startSweep(built: Built, launching: Promise<Browser>): Promise<Sweep> {
  let session: Session | undefined;
  try {
    session = await startSession(built, launching);
    const made = await makeState(session);
    const s = session;
    return { check: (name) => checkPage(s, name, made), stop: () => stopSession(s) };
  } catch (e) {
    await stopSession(session ?? { built });
    throw e;
  }
}

/** A control-plane POST that must succeed; its answer. */
async function control<T>(s: Session, path: string, body: unknown): Promise<T> {
  const res = await controlPost(s.server, path, body);
  if (!res.ok) throw new Error(`POST /_emulator${path}: ${res.status} ${await res.text()}`);
  return (await res.json()) as T;
}

/** A developer-API call that must succeed. */
async function api(s: Session, path: string, method: string, body: unknown): Promise<void> {
  const res = await apiFetch(s.server, path, { method, body: JSON.stringify(body) });
  if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${await res.text()}`);
}

/** `ext deploy` of a version, which must land in the review queue; its id. */
async function deployPending(s: Session, sounds: number, version: string): Promise<string> {
  const deployed = await deployVersion(s, sounds, version);
  expect({ code: deployed.code, stderr: deployed.stderr }).toEqual({ code: 0, stderr: expect.any(String) });
  const res = await apiFetch(s.server, "/extensions/ext_board/versions");
  const { versions } = (await res.json()) as { versions: { id: string; version: string; status: string }[] };
  const made = versions.find((v) => v.version === version);
  expect(made?.status).toBe("pending");
  return made!.id;
}

/** A control-plane DELETE that must succeed. */
async function controlDelete(s: Session, path: string): Promise<void> {
  const res = await adminFetch(s.server, path, { method: "DELETE" });
  if (!res.ok) throw new Error(`DELETE /_emulator${path}: ${res.status} ${await res.text()}`);
}

/** A developer-API call expected to answer `status`: a row of the request log. */
async function logged(s: Session, path: string, status: number, init: RequestInit & { key?: string } = {}) {
  expect({ path, status: (await apiFetch(s.server, path, init)).status }).toEqual({ path, status });
}

async function makeState(s: Session): Promise<Made> {
  // What the stories leave behind, made as their pages make it: keys of the form's default scope (one used, and
  // refused a write), the sound limit raised to 80 by an approved request, a 60-sound version approved, the
  // extension's fields saved, a secret, two installs, an extension named like markup, the other account at its
  // 20 keys with one revoked, and a log with 404s of several keys (the CLI's with the dashboard key), a fault's
  // 503 (no account, no key) and a 403.
  const readOnly = await control<{ plaintext: string }>(s, "/accounts/acc_dev/keys", {
    name: "from the dashboard",
    scopes: ["extensions:read"],
  });
  await logged(s, "/extensions", 200, { key: readOnly.plaintext });
  await logged(s, "/extensions", 403, { key: readOnly.plaintext, method: "POST", body: '{"name":"No"}' });
  const raise = await control<{ limitRequest: { id: string } }>(s, "/limit-requests", {
    accountId: "acc_dev",
    scope: "extension",
    extensionId: "ext_board",
    limits: { max_sounds_per_extension: 80 },
    reason: "Our board ships sixty effects in the next release.",
  });
  await control(s, `/limit-requests/${raise.limitRequest.id}/approve`, {});
  await control(s, `/versions/${await deployPending(s, 60, "2.0.0")}/approve`, {});
  for (const probe of ["ext_url_probe", "ext_live_probe"]) await logged(s, `/extensions/${probe}`, 404);
  const cli = await run(s.built.bin, ["extensions", "get", "ext_cli_probe", "--target", s.server.baseUrl], {
    cwd: s.built.work,
    env: { EXT_ADMIN_TOKEN: s.server.adminToken },
  });
  expect(cli.stderr).toContain("extension_not_found");
  await api(s, "/extensions", "POST", { name: "<img src=x onerror=alert(1)>" });
  // The stories had opened the other account's pages before its keys reached the cap: its dashboard key is one.
  await control(s, "/accounts/acc_other/dashboard-key", {});
  const otherKeys = async () =>
    (
      (await (await adminFetch(s.server, "/accounts/acc_other/keys")).json()) as {
        apiKeys: { id: string; name: string; revokedAt: string | null }[];
      }
    ).apiKeys;
  const active = (await otherKeys()).filter((k) => !k.revokedAt).length;
  for (let i = 0; i < 20 - active; i++)
    await control(s, "/accounts/acc_other/keys", { name: `bulk ${i}`, scopes: ["*"] });
  await controlDelete(s, `/accounts/acc_other/keys/${(await otherKeys()).find((k) => k.name === "bulk 0")!.id}`);
  await control(s, "/accounts/acc_other/keys", { name: "one too many", scopes: ["extensions:read"] });
  await api(s, "/extensions/ext_board", "PATCH", { short_description: "Sixty sounds", visibility: "public" });
  await api(s, "/extensions/ext_board/secrets/WEBHOOK_SECRET", "PUT", { value: "typed-secret-value-7" });
  await control(s, "/extensions/ext_board/installs", { count: 2 });
  const fault = await control<{ fault: { id: string } }>(s, "/faults", { path: "/extensions/ext_fault", status: 503 });
  await logged(s, "/extensions/ext_fault", 503);
  await controlDelete(s, `/faults/${fault.fault.id}`);
  await logged(s, "/extensions/ext_fault", 404);
  await control(s, "/accounts/acc_dev/keys", { name: "typed with keys", scopes: ["extensions:read"] });

  // Something in every list, and a button in every row kind: an install, a secret, a pending version for the
  // queue, a pending limit request, a fault.
  await control(s, "/extensions/ext_board/installs", { count: 3 });
  await api(s, "/extensions/ext_board/secrets/API_TOKEN", "PUT", { value: "value-never-shown-1" });
  await control(s, "/limit-requests", {
    accountId: "acc_dev",
    scope: "account",
    limits: { max_api_keys: 40 },
    reason: "Forty CI pipelines run in parallel now.",
  });
  await control(s, "/faults", { path: "/extensions/ext_fault_probe", status: 503 });
  const bundleId = await deployPending(s, 12, "2.1.0");
  // A long path in the log (a 64-character id, then a long name): its row and its detail wrap it.
  const longPath = `/extensions/${LONG_EXTENSION_ID}/secrets/A_SECRET_NAME_WITH_NO_BREAK_IN_IT_AT_ALL`;
  // Another account's extension: not found for this key, and logged as asked.
  await logged(s, longPath, 404, { method: "PUT", body: JSON.stringify({ value: "x" }) });
  const log = (await (await adminFetch(s.server, "/requests")).json()) as {
    requests: { id: number; path: string }[];
  };
  const longRequest = log.requests.find((r) => r.path === `/developer/v1${longPath}`);
  expect(longRequest).toBeDefined();
  return { bundleId, longRequestId: longRequest!.id };
}

async function checkPage(s: Session, name: PageName, made: Made): Promise<void> {
  const { page } = s;
  const p = PAGES[name];
  const seen = watch(page);
  await page.emulateMedia({ colorScheme: "light" });
  await page.setViewportSize(DESKTOP);
  await openPage(s.server, p.hash(made), page);
  await countIs(page.locator("text=Loading…"), 0);
  const button = ROW_BUTTON[name];
  if (button) await page.getByRole("button", { name: button }).first().waitFor();
  const text = SHOWS[name];
  if (text) await textHas(page.locator("main"), text);
  expect(await page.locator("body").textContent()).not.toMatch(RAW_VALIDATOR);
  for (const { scheme, viewport } of STATES) {
    await page.emulateMedia({ colorScheme: scheme });
    await page.setViewportSize(viewport);
    const where = { page: name, scheme, viewport };
    const onPhone = viewport === PHONE;
    // axe: every page in both schemes at 1280 px, and on a phone in light; colours do not depend on the
    // width, so the dark scheme's colour rules run on a phone only for a few pages of cards.
    if (!(onPhone && scheme === "dark") || DARK_PHONE_AXE.includes(name)) {
      const rules = scheme === "dark" ? COLOUR_RULES : undefined;
      expect({ ...where, violations: describeViolations(await seriousViolations(page, rules)) }).toEqual({
        ...where,
        violations: [],
      });
    }
    // Nothing wider than the screen (on a desktop a wide table may scroll inside its own region; on a
    // phone every table is cards, so no cell that identifies a row is off to the side); and every
    // control of the page on the screen, inside a table too (a button there is no easier to reach).
    const overflow = await page.evaluate<string[]>(WIDER_THAN_SCREEN);
    const off = await page.evaluate<string[]>(OFF_SCREEN);
    // On a phone, no card's heading or value runs out of its cell into the next row.
    const spill = onPhone ? await page.evaluate<string[]>(CARD_SPILL) : [];
    expect({ ...where, overflow, off, spill }).toEqual({ ...where, overflow: [], off: [], spill: [] });
    const shot =
      scheme === "light" ? (onPhone ? PHONE_SHOTS.includes(name) : p.shot) : !onPhone && DARK_SHOTS.includes(name);
    if (shot) {
      // A request's page is shot at its detail (the list of requests is the "requests" shot).
      if (name === "request") await page.locator(".detail").scrollIntoViewIfNeeded();
      await shoot(page, `${name}${onPhone ? "-phone" : ""}${scheme === "dark" ? "-dark" : ""}`, !onPhone);
    }
  }
  seen.stop();
  expect({ page: name, console: seen.consoleErrors, failed: seen.failed }).toEqual({
    page: name,
    console: [],
    failed: [],
  });
}
