/**
 * The dashboard's second-day rough edges, in a real headless Chromium against an in-process emulator: a refused
 * fixture lists every problem; the Requests chart counts what its table lists; the extension header names its
 * current version by label; the API reference says it is loading at once, is linked from the dashboard, and its
 * "try it" carries the dashboard's key. Both sizes and both colour schemes, axe on what changed. (That no page
 * scrolls sideways and every action is on the screen is the sweep of every page: ./sweep.ts.)
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Browser, BrowserContext, Page } from "playwright-core";
import {
  browserAvailable,
  COLOUR_RULES,
  describeViolations,
  launchBrowser,
  logIn,
  OFF_SCREEN,
  REFERENCE_DRAW_MS,
  seriousViolations,
  until,
} from "../helpers/browser";
import { bundleDir, createExtension, uploadVersion } from "../helpers/bundles";
import { errorOf, startTestEmulator, stopTestEmulator, type TestEmulator } from "../helpers/emulator";

const enabled = browserAvailable();
const STEP_TIMEOUT_MS = 90_000;
/** A step that draws the API reference: the drawing's own bound, and the step's for the rest. */
const DRAWING_STEP_TIMEOUT_MS = REFERENCE_DRAW_MS + STEP_TIMEOUT_MS;
const DESKTOP = { width: 1280, height: 800 };
const PHONE = { width: 390, height: 844 };
const SCHEMES = ["light", "dark"] as const;
const ACCOUNT = "acc_test";

describe.skipIf(!enabled)("dashboard rough edges (Chromium, in-process emulator)", () => {
  let emu: TestEmulator;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let extensionId: string;
  let approvedVersionId: string;
  /** The dashboard key the docs' try-it was handed (by the /docs test), which no other docs page may show. */
  let handedKey: string | undefined;
  const bundles = bundleDir();

  beforeAll(async () => {
    [emu, browser] = await Promise.all([startTestEmulator(), launchBrowser()]);
    extensionId = await createExtension(emu);
    // One approved version (the current one) and a newer pending one: the header names the current one.
    const first = await uploadVersion(emu, extensionId, { version: "1.4.2", bundle: await bundles.make() });
    approvedVersionId = first.data?.version.id ?? "";
    const approved = await emu.control.POST("/_emulator/versions/{versionId}/approve", {
      params: { path: { versionId: approvedVersionId } },
    });
    expect(approved.response.status).toBe(200);
    const second = await uploadVersion(emu, extensionId, { version: "1.5.0", bundle: await bundles.make() });
    expect(second.response.status).toBe(202);
    // CSP bypassed so that axe can be injected (the docs test below keeps the policy).
    context = await browser.newContext({ viewport: DESKTOP, bypassCSP: true });
    page = await context.newPage();
    await logIn(page, owner());
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await stopTestEmulator(emu);
    bundles.cleanup();
  });

  const owner = () => ({ url: emu.url, adminToken: emu.runtime.control.adminToken });
  const open = async (hash: string, p = page) => {
    await p.goto("about:blank");
    await p.goto(`${emu.dashboardUrl}/?account=${ACCOUNT}${hash}`);
    await p.locator("h1").first().waitFor();
    await until("the page to load", async () => (await p.locator("text=Loading…").count()) === 0);
  };
  // A second colour scheme changes colours only: in it, the rules about colours are the ones to run.
  const axeClean = async (where: { scheme?: string; [place: string]: unknown }) =>
    expect({
      ...where,
      violations: describeViolations(await seriousViolations(page, where.scheme === "dark" ? COLOUR_RULES : undefined)),
    }).toEqual({
      ...where,
      violations: [],
    });

  test(
    "a pasted fixture the server refuses lists every problem, readable and bounded, at both sizes and in both schemes",
    async () => {
      // Four bad fields in each of six accounts: the first ten listed, the others one click away.
      const accounts = Array.from({ length: 6 }, (_, i) => ({ id: `bad id ${i}`, apiKeys: [{ scopes: "all" }] }));
      await open("#/admin/state");
      await page.getByLabel(/^Or paste a fixture/).fill(JSON.stringify({ accounts }));
      await page.getByRole("button", { name: "Load fixture" }).click();
      const note = page.locator("form .note.error");
      await note.waitFor();
      const problems = note.getByTestId("problems");
      await problems.waitFor();
      // The same fixture, refused: raw, as the typed client would not send it.
      const seeded = await emu.rawRequest("POST", "/_emulator/seed", {
        key: emu.runtime.control.adminToken,
        json: { accounts },
      });
      const refusal = { details: errorOf(seeded.body)?.details ?? [] };
      expect(refusal.details.length).toBeGreaterThan(10);
      const lines = await note.locator("li").allTextContents();
      expect(lines).toEqual(refusal.details.map((d) => `${d.field}: ${d.message}`));
      expect(await problems.locator("li").count()).toBe(10);
      await textOf(
        note,
        new RegExp(`^422 validation_error: Fixture failed validation.*${refusal.details.length} problems:`),
      );
      await note.locator("summary").click();
      expect(await note.locator("li").last().isVisible()).toBe(true);
      for (const scheme of SCHEMES) {
        await page.emulateMedia({ colorScheme: scheme });
        for (const viewport of [DESKTOP, PHONE]) {
          await page.setViewportSize(viewport);
          await axeClean({ scheme, viewport });
          expect({ scheme, viewport, off: await page.evaluate<string[]>(OFF_SCREEN) }).toEqual({
            scheme,
            viewport,
            off: [],
          });
        }
      }
      await page.emulateMedia({ colorScheme: "light" });
      await page.setViewportSize(DESKTOP);

      // Bounded: 300 bad accounts are the server's first 100 problems and its line saying there are more.
      const many = Array.from({ length: 300 }, (_, i) => ({ id: `x y ${i}`, name: "n" }));
      await page.getByLabel(/^Or paste a fixture/).fill(JSON.stringify({ accounts: many }));
      await page.getByRole("button", { name: "Load fixture" }).click();
      await until("the long list", async () => (await note.locator("li").count()) === 101);
      expect(await note.locator("li").last().textContent()).toContain("only the first 100");
      await textOf(note, /100\+ problems:/);
    },
    STEP_TIMEOUT_MS,
  );

  test(
    "the Requests chart counts the requests its table lists: the dashboard's own hidden alike, and the filters",
    async () => {
      // The dashboard asks for two extensions that do not exist (its own calls, 404s); a script asks for one.
      // Each page a real load (only the hash differs: a goto would keep the last page's alert on the screen).
      const probes = ["ext_own_probe", "ext_chart_probe"];
      for (const id of probes) {
        await page.goto("about:blank");
        await page.goto(`${emu.dashboardUrl}/?account=${ACCOUNT}#/extensions/${id}`);
        await textOf(page.getByRole("alert"), /extension_not_found/);
      }
      // The page shows the first refusal while its other three requests may still be on their way: all four of
      // each page in the log before the Requests page reads it, so what it lists does not grow under the test.
      const ownLogged = async (id: string) =>
        ((await emu.control.GET("/_emulator/requests")).data?.requests ?? []).filter(
          (e) => e.client === "dashboard" && e.path.includes(id),
        ).length;
      for (const id of probes)
        await until(`the four requests of ${id}'s page`, async () => (await ownLogged(id)) === 4);
      const probe = await emu.client.GET("/developer/v1/extensions/{id}", {
        params: { path: { id: "ext_chart_probe" } },
      });
      expect(probe.response.status).toBe(404);
      await open("#/requests");
      await until("the stream", async () => (await page.getByTestId("live").textContent()) === "live");
      const rows = page.locator("tbody tr");
      const total = (c: string) => page.getByTestId(`chart-total-${c}`);
      const hideOwn = page.getByLabel("Hide the requests this dashboard made itself");
      // Only the dashboard's own request matches: none listed, none counted, and the page says why.
      await page.getByLabel("Path contains").fill("ext_own_probe");
      await textOf(
        page.getByTestId("requests-empty"),
        /^Only this dashboard's own requests match \(\d+\), which are hidden/,
      );
      expect(await rows.count()).toBe(0);
      expect(await total("4xx").textContent()).toBe("4xx 0");
      expect(await total("2xx").textContent()).toBe("2xx 0");
      // The script's request listed and counted; the dashboard's own beside it neither, until asked for.
      await page.getByLabel("Path contains").fill("ext_chart_probe");
      await until("the script's row", async () => (await rows.count()) === 1);
      expect(await total("4xx").textContent()).toBe("4xx 1");
      await hideOwn.uncheck();
      await until("the dashboard's own rows", async () => (await rows.count()) > 1);
      // Its page asks for the extension, its versions, installs and secrets: every one of them listed and counted.
      expect(await rows.locator(".status-good").count()).toBe(0);
      expect(await total("4xx").textContent()).toBe(`4xx ${await rows.count()}`);
      // A filter that leaves nothing leaves the chart empty too.
      await page.getByLabel("Status starts with").fill("2");
      await until("the status filter", async () => (await rows.count()) === 0);
      expect(await total("4xx").textContent()).toBe("4xx 0");
      await hideOwn.check();
    },
    STEP_TIMEOUT_MS,
  );

  test(
    "the extension's header names its current version by label, linked to it",
    async () => {
      await open(`#/extensions/${extensionId}`);
      const current = page.getByTestId("current-version");
      await textOf(current, /^1\.4\.2$/);
      expect(await current.getAttribute("href")).toBe(`#/extensions/${extensionId}/versions/${approvedVersionId}`);
      expect(await page.locator("main").textContent()).not.toContain(`current version ${approvedVersionId}`);
    },
    STEP_TIMEOUT_MS,
  );

  test(
    "the dashboard links to /docs; in this tab its try-it sends the account's dashboard key, to this emulator only",
    async () => {
      const docsContext = await browser.newContext({ viewport: DESKTOP });
      try {
        const p = await docsContext.newPage();
        // The dashboard's own origin: its docs link, and the docs' try-it, stay on it.
        const origin = await logIn(p, owner());
        const origins = new Set<string>();
        const authorizations: string[] = [];
        p.on("request", (r) => {
          origins.add(new URL(r.url()).origin);
          if (r.url().startsWith(`${origin}/developer/v1/extensions`))
            authorizations.push(r.headers().authorization ?? "");
        });
        await open("#/keys", p);
        await p.getByRole("navigation", { name: "Sections" }).getByRole("link", { name: "API reference" }).click();
        await p.waitForURL(`${origin}/docs`);
        const handed = await emu.control.POST("/_emulator/accounts/{accountId}/dashboard-key", {
          params: { path: { accountId: ACCOUNT } },
        });
        const key = handed.data?.plaintext;
        await p.locator(".scalar-app h1").waitFor({ timeout: REFERENCE_DRAW_MS });
        const token = p.getByPlaceholder("Token").first();
        await until("the token to be filled in", async () => (await token.inputValue()) === key, 30_000);
        // The operation's own section (same tab: the handed key stays with it).
        await p.goto(`${origin}/docs#tag/extensions/GET/developer/v1/extensions`);
        await p.locator("button", { hasText: "Test Request" }).first().click({ timeout: 60_000 });
        await p.getByRole("button", { name: /^Send/ }).first().click();
        await until("try-it's request", async () => authorizations.length > 0, 30_000);
        expect(authorizations).toEqual([`Bearer ${key}`]);
        // Read once and gone from the tab's storage: a later page on this port (same origin) finds nothing.
        expect(await p.evaluate<string | null>("sessionStorage.getItem('ext-docs-api-key')")).toBeNull();
        expect([...origins].filter((o) => o !== origin)).toEqual([]);
        // That /docs opened any other way fills nothing in is checked where a docs page is drawn anyway: the
        // test of its loading note, below (each drawing of the reference costs a few CPU-seconds).
        handedKey = key;
      } finally {
        await docsContext.close();
      }
    },
    DRAWING_STEP_TIMEOUT_MS,
  );

  test(
    "the admin page waits for the account list: its tabs never act for no account, so a row added to the overrides at once stays",
    async () => {
      let release = () => {};
      const held = new Promise<void>((resolve) => {
        release = resolve;
      });
      let asked = false;
      await page.route("**/_emulator/accounts", async (route) => {
        asked = true;
        await held;
        await route.continue().catch(() => undefined);
      });
      try {
        await page.goto("about:blank");
        await page.goto(`${emu.dashboardUrl}/?account=${ACCOUNT}#/admin/overrides`);
        await until("the account list to be asked for", async () => asked);
        // Until it comes: one line saying so, no tab (the overrides tab used to show a form for no account, then
        // reload it for the account and drop a row added meanwhile).
        await textOf(page.locator("main > p.muted"), /^Loading…$/);
        expect(await page.locator("main h1").count()).toBe(0);
        release();
        await page.getByLabel("Add a limit").selectOption("max_secrets_per_extension");
        await page.getByRole("button", { name: "Add", exact: true }).click();
        await page.getByRole("button", { name: "Save overrides" }).click();
        await textOf(page.locator("#ov-max_secrets_per_extension-error"), /^max_secrets_per_extension is required\.$/);
      } finally {
        release();
        await page.unroute("**/_emulator/accounts");
      }
    },
    STEP_TIMEOUT_MS,
  );

  test(
    "/docs says it is loading before Scalar's script has even arrived, in both schemes, and the note goes once the reference is drawn; opened so (not from the dashboard), it fills no key in",
    async () => {
      let release = () => {};
      const held = new Promise<void>((resolve) => {
        release = resolve;
      });
      await page.route("**/docs/scalar.js", async (route) => {
        await held;
        // The page may have gone by then (a failed step): nothing left to answer.
        await route.continue().catch(() => undefined);
      });
      try {
        await page.goto(`${emu.url}/docs`, { waitUntil: "commit" });
        const note = page.locator(".ext-docs-loading");
        await until("the loading note", async () => await note.isVisible());
        expect(await note.textContent()).toContain("Loading the API reference…");
        expect(await page.getAttribute("html", "lang")).toBe("en");
        for (const scheme of SCHEMES) {
          await page.emulateMedia({ colorScheme: scheme });
          await axeClean({ docs: "loading", scheme });
        }
        await page.emulateMedia({ colorScheme: "light" });
        release();
        await page.locator(".scalar-app h1").waitFor({ timeout: REFERENCE_DRAW_MS });
        await until("the note to go", async () => !(await note.isVisible()));
        // Opened any other way than from the dashboard (a new tab, a bookmark), after the test above handed the
        // try-it a key: nothing filled in, nothing in the tab's storage.
        expect(handedKey).toBeDefined();
        expect(await page.evaluate("sessionStorage.length")).toBe(0);
        const values = await page.evaluate<string[]>("[...document.querySelectorAll('input')].map((i) => i.value)");
        expect(values).not.toContain(handedKey);
      } finally {
        release();
        await page.unroute("**/docs/scalar.js");
      }
    },
    DRAWING_STEP_TIMEOUT_MS,
  );
});

/** Waits until the locator's trimmed text matches. */
const textOf = (l: import("playwright-core").Locator, expected: RegExp) =>
  until(`${l} to match ${expected}`, async () =>
    expected.test(((await l.first().textContent({ timeout: 500 })) ?? "").trim()),
  );
