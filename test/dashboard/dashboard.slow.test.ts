/**
 * The dashboard in a real headless Chromium, against the compiled binary (`ext serve` over a socket): the
 * issue's end-to-end stories, one after the other on the state the earlier ones left, keyboard use, and their
 * screenshots in docs/screenshots/. One browser and one server for the whole file. Every page in every state
 * (axe-core, both screen sizes, both schemes) is the sweep of sweep.slow.test.ts.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { BUILD_TIMEOUT_MS, type Built, buildBinary, run, type ServedBinary } from "../binary/helpers";
import {
  browserAvailable,
  describeViolations,
  launchBrowser,
  logIn,
  seriousViolations,
  until,
} from "../helpers/browser";
import { cleanEnv } from "../helpers/clean-env";
import { startTestEmulator, stopTestEmulator } from "../helpers/emulator";
import { readAsItComes } from "../helpers/read-until";
import { waitFor } from "../helpers/wait-for";
import {
  apiFetch,
  countIs,
  DESKTOP,
  deployVersion,
  KEY,
  LONG_EXTENSION_ID,
  openPage,
  RAW_VALIDATOR,
  REJECT_REASON,
  type Session,
  STEP_TIMEOUT_MS,
  shoot,
  startSession,
  stopSession,
  textHas,
  textIs,
  watch as watchPage,
} from "./served";

const enabled = browserAvailable();

describe.skipIf(!enabled)("dashboard in Chromium against the compiled binary", () => {
  let session: Session;
  let built: Built;
  let server: ServedBinary;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let dialogs: string[];

  beforeAll(async () => {
    session = await startSession(buildBinary(), launchBrowser());
    ({ built, server, browser, context, page, dialogs } = session);
  }, BUILD_TIMEOUT_MS);

  afterAll(() => stopSession(session));

  const open = (hash: string, p = page) => openPage(server, hash, p);
  const deploy = (sounds: number, version: string) => deployVersion(session, sounds, version);
  const api = (path: string, init: RequestInit & { key?: string } = {}) => apiFetch(server, path, init);
  const watch = (p = page) => watchPage(p);

  // First: it needs the server as it started (no dashboard key made yet).
  test(
    "the first load's key count is the one the API keys page lists (the dashboard key included)",
    async () => {
      // The order the page keeps: the dashboard key made (its answer back) before the counts are read. A race
      // between the two would often show the right number anyway, so the order itself is checked.
      const events: string[] = [];
      // The login's own first load of the dashboard may still be reading: leave it before listening.
      await page.goto("about:blank");
      const onRequest = (r: { method(): string; url(): string }) =>
        events.push(`request ${r.method()} ${new URL(r.url()).pathname}`);
      const onResponse = (r: { request(): { method(): string }; url(): string }) =>
        events.push(`response ${r.request().method()} ${new URL(r.url()).pathname}`);
      page.on("request", onRequest);
      page.on("response", onResponse);
      await open("#/");
      const count = page.locator(".counts li", { hasText: "Active API keys" }).locator(".count");
      await count.waitFor();
      page.off("request", onRequest);
      page.off("response", onResponse);
      const keyMade = events.indexOf("response POST /_emulator/accounts/acc_dev/dashboard-key");
      const countsRead = events.indexOf("request GET /_emulator/state");
      expect(keyMade).toBeGreaterThanOrEqual(0);
      expect(countsRead).toBeGreaterThan(keyMade);
      const state = (await (
        await fetch(`${server.adminUrl}/state`, { headers: { authorization: `Bearer ${server.adminToken}` } })
      ).json()) as { counts: { apiKeys: number } };
      expect(Number(await count.textContent())).toBe(state.counts.apiKeys);
      const devKeys = page.getByRole("row", { name: /Dev Studio/ });
      const listed = (await (
        await fetch(`${server.adminUrl}/accounts/acc_dev/keys`, {
          headers: { authorization: `Bearer ${server.adminToken}` },
        })
      ).json()) as {
        apiKeys: { revokedAt: string | null }[];
      };
      // The accounts table's "Active keys" column.
      await textIs(devKeys.locator("td, th").nth(3), String(listed.apiKeys.filter((k) => !k.revokedAt).length));
    },
    STEP_TIMEOUT_MS,
  );

  test(
    "a key created in the UI works with fetch, once; the plaintext is shown once",
    async () => {
      await open("#/keys");
      await textIs(page.getByTestId("key-usage"), /of 20/);
      await page.getByLabel("Name", { exact: true }).fill("from the dashboard");
      await page.getByRole("button", { name: "Create key" }).click();
      const plaintext = (await page.getByTestId("plaintext").textContent())!;
      expect(plaintext).toMatch(/^ext_[0-9A-Za-z]{40}$/);
      expect((await api("/extensions", { key: plaintext })).status).toBe(200);
      await page.getByRole("row", { name: /from the dashboard/ }).waitFor();
      // The default scope was extensions:read only: a write is refused by the API.
      expect(
        (await api("/extensions", { key: plaintext, method: "POST", body: JSON.stringify({ name: "No" }) })).status,
      ).toBe(403);
    },
    STEP_TIMEOUT_MS,
  );

  test(
    "sound limit raised to 80 by request + admin approval; a 60-sound deploy lands in the review queue; approval shows on the extension page live",
    async () => {
      await open("#/limits");
      await page.getByLabel("Scope").selectOption("ext_board");
      await page.getByLabel("Request an increase of max_sounds_per_extension").check();
      await page.getByRole("button", { name: "Next: desired values" }).click();
      await page.getByLabel(/^max_sounds_per_extension/).fill("80");
      await page.getByRole("button", { name: "Next: reason" }).click();
      await page.getByLabel(/Why you need it/).fill("Our board ships sixty effects in the next release.");
      await page.getByRole("button", { name: "Next: review" }).click();
      await page.getByRole("button", { name: "Submit request" }).click();
      await textIs(page.getByTestId("request-status").first(), "pending");

      await open("#/admin");
      await page.getByRole("tab", { name: "Limit requests" }).click();
      await page.getByRole("button", { name: /^Approve req_/ }).click();
      await textIs(page.getByTestId("request-status").first(), "approved");

      expect((await deploy(60, "2.0.0")).code).toBe(0);

      // The extension page, open in a second window (a background tab's timers would be throttled), before the decision.
      const second = await browser.newContext({ viewport: DESKTOP });
      const extPage = await second.newPage();
      await logIn(extPage, server);
      await open("#/extensions/ext_board", extPage);
      const status = extPage.locator('tr[data-version="2.0.0"] [data-testid="version-status"]');
      await textIs(status, "pending");

      await page.getByRole("tab", { name: "Review queue" }).click();
      const row = page.locator('tr[data-queue-version="2.0.0"]');
      await row.waitFor();
      await textHas(row, "60 sounds");
      await row.getByRole("button", { name: /^Approve/ }).click();
      await countIs(row, 0);

      // No reload: the page notices the decision by itself.
      await textIs(status, "approved", 15_000);
      await second.close();
    },
    STEP_TIMEOUT_MS,
  );

  test(
    "forms check the API's rules before sending: one human message per field, no request, no console error",
    async () => {
      await open("#/keys");
      await textIs(page.getByTestId("key-usage"), /of 20/);
      const seen = watch();
      await page.getByLabel("Name", { exact: true }).fill("   ");
      await page.getByRole("button", { name: "Create key" }).click();
      await textIs(page.locator("#key-name-error"), "Name is required.");
      expect(await page.locator("#key-name").getAttribute("aria-invalid")).toBe("true");
      await page.getByLabel("Name", { exact: true }).fill("x".repeat(101));
      await page.getByRole("button", { name: "Create key" }).click();
      await textIs(page.locator("#key-name-error"), "Name can have at most 100 characters (101 now).");

      await open("#/extensions");
      await page.getByRole("button", { name: "Create" }).click();
      await textIs(page.locator("#new-ext-name-error"), "Name is required.");

      await open("#/admin/faults");
      await page.getByLabel("Code").fill("Not-A-Code");
      await page.getByLabel("Status").fill("200");
      await page.getByRole("button", { name: "Add fault" }).click();
      await textHas(page.locator(".note.error"), "Status must be at least 400.");
      await textHas(page.locator(".note.error"), "Code must start with a lower-case letter");
      expect(await page.getByText("/extensions/:id/versions").count()).toBe(1);
      seen.stop();
      // A page load fetches the account's dashboard key; no form's own request goes out.
      expect(seen.requests.filter((r) => r.startsWith("POST") && !r.endsWith("/dashboard-key"))).toEqual([]);
      expect(seen.consoleErrors).toEqual([]);
      expect(seen.failed).toEqual([]);
      expect(await page.locator("body").textContent()).not.toMatch(RAW_VALIDATOR);
    },
    STEP_TIMEOUT_MS,
  );

  test(
    "the secret, installs, clock, overrides and fixture forms check before sending: one message per field, no request",
    async () => {
      await open("#/extensions/ext_board/secrets");
      const seen = watch();
      const field = (id: string) => page.locator(`#${id}`);
      const problem = (id: string) => page.locator(`#${id}-error`);
      await field("secret-name").fill("bad-name");
      await page.getByRole("button", { name: "Set secret" }).click();
      await textIs(
        problem("secret-name"),
        "Name must start with a letter or _, then letters, digits or _ only (no spaces or dashes), 128 characters at most.",
      );
      await textIs(problem("secret-value"), "Value is required.");
      expect(await field("secret-name").getAttribute("aria-invalid")).toBe("true");
      expect(await field("secret-name").getAttribute("aria-describedby")).toBe("secret-name-error");
      // Focus goes to the first field to fix.
      expect(await page.evaluate<string | null>("document.activeElement?.id")).toBe("secret-name");

      await open("#/extensions/ext_board/installs");
      await field("inst-count").fill("0");
      await page.getByRole("button", { name: "Simulate installs" }).click();
      await textIs(problem("inst-count"), "How many must be at least 1.");
      await field("inst-count").fill("");
      await page.getByRole("button", { name: "Simulate uninstalls" }).click();
      await textIs(problem("inst-count"), "How many is required.");

      await open("#/admin/clock");
      await field("clock-adv").fill("");
      await page.getByRole("button", { name: "Advance" }).click();
      await textIs(problem("clock-adv"), "Advance by is required.");
      await field("clock-set").fill("next tuesday");
      await page.getByRole("button", { name: "Set", exact: true }).click();
      await textIs(problem("clock-set"), "Set to must be a date and time with its zone, like 2030-01-01T00:00:00Z.");

      await open("#/admin/overrides");
      await page.getByLabel("Add a limit").selectOption("max_secrets_per_extension");
      await page.getByRole("button", { name: "Add", exact: true }).click();
      await page.getByRole("button", { name: "Save overrides" }).click();
      await textIs(problem("ov-max_secrets_per_extension"), "max_secrets_per_extension is required.");
      await field("ov-max_secrets_per_extension").fill("-1");
      await page.getByRole("button", { name: "Save overrides" }).click();
      await textIs(problem("ov-max_secrets_per_extension"), "max_secrets_per_extension must be at least 0.");

      await open("#/admin/state");
      await page.getByLabel(/^Or paste a fixture/).fill('{"accounts": []');
      await page.getByRole("button", { name: "Load fixture" }).click();
      await textIs(problem("fixture"), "The fixture is not valid JSON (line 1, column 16).");
      await page.getByRole("button", { name: "Load file" }).click();
      await textIs(problem("seed-file"), "Choose a fixture (.json) or an export (.tar) file.");
      // The messages as they look, and readable, in both schemes.
      for (const scheme of ["light", "dark"] as const) {
        await page.emulateMedia({ colorScheme: scheme });
        expect({ scheme, violations: describeViolations(await seriousViolations(page)) }).toEqual({
          scheme,
          violations: [],
        });
        if (scheme === "dark") await shoot(page, "form-messages-dark");
      }
      await page.emulateMedia({ colorScheme: "light" });

      seen.stop();
      // Page loads read (and fetch the account's dashboard key); no form's own request goes out.
      expect(seen.requests.filter((r) => !r.startsWith("GET") && !r.endsWith("/dashboard-key"))).toEqual([]);
      expect(seen.consoleErrors).toEqual([]);
      expect(seen.failed).toEqual([]);
      expect(await page.locator(".note.error").count()).toBe(0);
    },
    STEP_TIMEOUT_MS,
  );

  test(
    "limits grouped as the spec groups them, each with its source; the increase wizard refuses a short reason and a decrease, reviews current → requested, and the API refuses a decrease too",
    async () => {
      // ext_board's sound limit was raised by the approved request above: an extension override.
      await open("#/limits/limits/ext_board");
      const sources = (key: string) => page.locator(`tr[data-limit="${key}"] [data-testid="limit-source"]`);
      await textIs(sources("max_sounds_per_extension"), "extension override");
      await textIs(sources("max_api_keys"), "default");
      expect(await page.locator("main h3").allTextContents()).toEqual([
        "API rate limits",
        "Per-account limits",
        "Per-extension storage",
        "Server functions",
        "Real-time",
        "Bundled sounds",
        "Build limits",
        "Hard limits (cannot be raised on any plan)",
        "Request an increase",
      ]);
      await textHas(page.locator('tr[data-rate-group="get"]'), "120 per minute");
      await open("#/limits");
      await page.getByLabel("Request an increase of max_api_keys").check();
      await page.getByLabel("Request an increase of max_team_members").check();
      await page.getByRole("button", { name: "Next: desired values" }).click();
      await page.getByLabel(/^max_api_keys/).fill("15");
      await page.getByLabel(/^max_team_members/).fill("12");
      await page.getByRole("button", { name: "Next: reason" }).click();
      await textIs(
        page.locator("#want-max_api_keys-error"),
        "The new max_api_keys must be above the current 20: a request can only raise a limit.",
      );
      expect(await page.locator("#want-max_team_members-error").count()).toBe(0);
      await page.getByLabel(/^max_api_keys/).fill("30");
      await page.getByRole("button", { name: "Next: reason" }).click();
      await page.getByLabel(/Why you need it/).fill("Need more.");
      await page.getByRole("button", { name: "Next: review" }).click();
      await textIs(page.locator("#reason-error"), "The reason needs at least 20 characters (10 now).");
      expect(await page.getByRole("button", { name: "Submit request" }).count()).toBe(0);
      await page.getByLabel(/Why you need it/).fill("Twenty CI pipelines run in parallel now.");
      await page.getByRole("button", { name: "Next: review" }).click();
      await textIs(page.getByTestId("review-max_api_keys"), "20 → 30");
      await textIs(page.getByTestId("review-max_team_members"), "10 → 12");
      expect(await page.locator("body").textContent()).not.toMatch(RAW_VALIDATOR);

      // The API's own refusal, shown once with its code.
      const res = await fetch(`${server.adminUrl}/limit-requests`, {
        method: "POST",
        headers: { "content-type": "application/json", authorization: `Bearer ${server.adminToken}` },
        body: JSON.stringify({
          accountId: "acc_dev",
          scope: "account",
          limits: { max_api_keys: 10 },
          reason: "Twenty CI pipelines run in parallel now.",
        }),
      });
      expect(res.status).toBe(422);
      expect(((await res.json()) as { error: { message: string } }).error.message).toContain("not an increase");
    },
    STEP_TIMEOUT_MS,
  );

  test(
    "URL state: every page, admin tab, extension section and request detail survives a reload; names in crumbs and titles",
    async () => {
      const crumbs = page.getByRole("navigation", { name: "Breadcrumb" });
      await open("#/admin");
      const selected = page.locator('[role="tab"][aria-selected="true"]');
      await textIs(selected, "Review queue");
      await selected.focus();
      await page.keyboard.press("ArrowRight");
      await textIs(selected, "Limit requests");
      expect(await page.evaluate<string | null>("document.activeElement?.textContent")).toBe("Limit requests");
      expect(new URL(page.url()).hash).toBe("#/admin/limits");
      await page.keyboard.press("End");
      await textIs(selected, "Reset and fixtures");
      await page.keyboard.press("ArrowRight");
      await textIs(selected, "Review queue");
      await page.keyboard.press("ArrowLeft");
      await page.reload();
      await textIs(selected, "Reset and fixtures");
      expect(await page.getByRole("tabpanel").count()).toBe(1);

      await open("#/limits/requests/ext_board");
      await page.reload();
      await textIs(page.locator('[role="tab"][aria-selected="true"]'), "Requests");
      await until(
        "the scope to be ext_board",
        async () => (await page.getByLabel("Scope").inputValue()) === "ext_board",
      );
      await textIs(crumbs, /^Dev Studio.*Developer limits.*Sound Board$/);

      await open("#/extensions/ext_board/secrets");
      await page.reload();
      await textIs(page.locator("h1"), "Sound Board");
      await textIs(crumbs, /^Dev Studio\s*Extensions\s*Sound Board$/);
      expect(await page.title()).toStartWith("Sound Board");
      await textHas(page.locator(".id-card"), "ext_board");
      await page.getByRole("button", { name: "Copy extension id" }).waitFor();
      expect(await page.locator('[aria-current="location"]').textContent()).toBe("Secrets");

      await open("#/requests");
      await textIs(page.getByTestId("live"), "live");
      expect((await api("/extensions/ext_url_probe")).status).toBe(404);
      const row = page.locator('tr[data-request-path="/developer/v1/extensions/ext_url_probe"]');
      await row.getByRole("link").click();
      await textHas(page.locator(".detail"), "extension_not_found");
      expect(new URL(page.url()).hash).toMatch(/^#\/requests\/\d+$/);
      await page.reload();
      await textHas(page.locator(".detail"), "extension_not_found");
      expect(await page.title()).toStartWith("Request ");
    },
    STEP_TIMEOUT_MS,
  );

  test(
    "the selected account is in the URL: kept while moving around, by a reload and by a shared link; old links still work",
    async () => {
      const accountOf = (p: Page) => new URL(p.url()).searchParams.get("account");
      await open("#/keys");
      await until("the URL to name acc_dev", async () => accountOf(page) === "acc_dev");
      await page.getByLabel("Account").selectOption("acc_other");
      await until("the URL to name acc_other", async () => accountOf(page) === "acc_other");
      expect(new URL(page.url()).hash).toBe("#/keys");
      await page.getByRole("navigation", { name: "Sections" }).getByRole("link", { name: "Extensions" }).click();
      await textIs(page.locator("h1"), "Extensions");
      expect(accountOf(page)).toBe("acc_other");
      await page.reload();
      const crumbs = page.getByRole("navigation", { name: "Breadcrumb" });
      await textIs(crumbs, /^Other Account/);
      expect(await page.getByLabel("Account").inputValue()).toBe("acc_other");

      // A shared link, in a browser that never saw this dashboard (no session storage).
      const shared = page.url();
      const other = await browser.newContext({ viewport: DESKTOP });
      try {
        const fresh = await other.newPage();
        await logIn(fresh, server);
        await fresh.goto(shared);
        await textIs(fresh.locator("h1"), "Extensions");
        await textIs(fresh.getByRole("navigation", { name: "Breadcrumb" }), /^Other Account/);
        expect(await fresh.getByLabel("Account").inputValue()).toBe("acc_other");
        // A link from before the account was in the URL opens the first account, and names it.
        await fresh.goto(`${server.dashboardUrl}/#/keys`);
        await textIs(fresh.locator("h1"), "API keys");
        await until("the old link to gain the account", async () => accountOf(fresh) === "acc_dev");
        expect(new URL(fresh.url()).hash).toBe("#/keys");
        // A link naming an account this emulator does not have: the first one, and a line that says so.
        await fresh.goto(`${server.dashboardUrl}/?account=acc_nope#/keys`);
        await textIs(fresh.getByTestId("account-missing"), "There is no account acc_nope here; showing acc_dev.");
        await until("the URL to name the account shown", async () => accountOf(fresh) === "acc_dev");
        await fresh.getByLabel("Account").selectOption("acc_other");
        await until("the notice to go once an account is chosen", async () => {
          return (await fresh.getByTestId("account-missing").count()) === 0;
        });
      } finally {
        await other.close();
      }
      await page.getByLabel("Account").selectOption("acc_dev");
      await until("the URL to name acc_dev again", async () => accountOf(page) === "acc_dev");
    },
    STEP_TIMEOUT_MS,
  );

  test(
    "a request appears live in the Requests page; its detail masks the key",
    async () => {
      await open("#/requests");
      await textIs(page.getByTestId("live"), "live");
      const res = await api("/extensions/ext_live_probe");
      expect(res.status).toBe(404);
      const row = page.locator('tr[data-request-path="/developer/v1/extensions/ext_live_probe"]');
      await row.waitFor();
      await textHas(row, "ci");
      // The list shows the error code; the chart counts the 404 among the last minutes' 4xx.
      await textHas(row, "extension_not_found");
      await until("the chart to count a 4xx", async () => {
        const text = (await page.getByTestId("chart-total-4xx").textContent()) ?? "";
        return Number(text.replace(/\D+/g, " ").trim().split(" ").pop()) >= 1;
      });
      expect(await page.getByTestId("request-chart").locator("svg rect.rate-4xx").count()).toBeGreaterThan(0);
      // The dashboard's own calls are hidden until asked for; the CLI's, made with the same "dashboard" key, are not.
      const hideOwn = page.getByLabel("Hide the requests this dashboard made itself");
      expect(await hideOwn.isChecked()).toBe(true);
      const ownProbe = "/developer/v1/extensions/ext_own_probe";
      // An extension that does not exist: the page asks the API for it (a 404) and shows the refusal.
      await page.goto(`${server.dashboardUrl}/#/extensions/ext_own_probe`);
      await until("the dashboard's own probe to be logged", async () =>
        (
          (await (
            await fetch(`${server.adminUrl}/requests`, { headers: { authorization: `Bearer ${server.adminToken}` } })
          ).json()) as { requests: { path: string }[] }
        ).requests.some((e) => e.path === ownProbe),
      );
      // The owner's CLI, with the server's admin token (a --memory server has no server.json to read it from).
      const cli = await run(built.bin, ["extensions", "get", "ext_cli_probe", "--target", server.baseUrl], {
        cwd: built.work,
        env: { EXT_ADMIN_TOKEN: server.adminToken },
      });
      expect(cli.stderr).toContain("extension_not_found");
      await open("#/requests");
      const cliRow = page.locator('tr[data-request-path="/developer/v1/extensions/ext_cli_probe"]');
      // Streamed oldest first: once the CLI's row is in, the page has heard of its own earlier probe too.
      await cliRow.waitFor();
      expect(await hideOwn.isChecked()).toBe(true);
      await textHas(cliRow, "dashboard");
      const ownRow = page.locator(`tr[data-request-path="${ownProbe}"]`);
      expect(await ownRow.count()).toBe(0);
      expect(await page.locator('tr[data-client="dashboard"]').count()).toBe(0);
      await hideOwn.uncheck();
      await ownRow.first().waitFor();
      await textHas(ownRow, "dashboard");
      await hideOwn.check();
      await countIs(ownRow, 0);
      await row.getByRole("link").click();
      const detail = page.locator(".detail");
      await textHas(detail, "extension_not_found");
      await textHas(detail, `Bearer ${KEY.slice(0, 8)}…`);
      expect(await detail.textContent()).not.toContain(KEY);
    },
    STEP_TIMEOUT_MS,
  );

  test(
    "an extension named like markup renders as text",
    async () => {
      const name = "<img src=x onerror=alert(1)>";
      expect((await api("/extensions", { method: "POST", body: JSON.stringify({ name }) })).status).toBe(201);
      await open("#/extensions");
      await page.getByRole("link", { name }).waitFor();
      expect(await page.locator("main img").count()).toBe(0);
      await page.getByRole("link", { name }).click();
      await textIs(page.locator("h1"), name);
      expect(await page.locator("main img").count()).toBe(0);
      expect(dialogs).toEqual([]);
    },
    STEP_TIMEOUT_MS,
  );

  test(
    "the 20-key cap is the API's own error; revoking frees a slot",
    async () => {
      // Up to the cap, whatever keys the account has by now (the dashboard's own key included).
      const listed = (await (
        await fetch(`${server.adminUrl}/accounts/acc_other/keys`, {
          headers: { authorization: `Bearer ${server.adminToken}` },
        })
      ).json()) as {
        apiKeys: { revokedAt: string | null }[];
      };
      const active = listed.apiKeys.filter((k) => !k.revokedAt).length;
      for (let i = 0; i < 20 - active; i++) {
        const res = await fetch(`${server.adminUrl}/accounts/acc_other/keys`, {
          method: "POST",
          headers: { "content-type": "application/json", authorization: `Bearer ${server.adminToken}` },
          body: JSON.stringify({ name: `bulk ${i}`, scopes: ["*"] }),
        });
        expect(res.status).toBe(201);
      }
      await open("#/keys");
      await page.getByLabel("Account").selectOption("acc_other");
      await textIs(page.getByTestId("key-usage"), "20 of 20");
      await page.getByLabel("Name", { exact: true }).fill("one too many");
      await page.getByRole("button", { name: "Create key" }).click();
      await textHas(page.locator(".note.error"), "422 limit_exceeded");
      // Code and message once: no second copy of the details.
      expect(await page.locator(".note.error").count()).toBe(1);
      expect(await page.locator(".note.error li").count()).toBe(0);
      await page.getByRole("button", { name: "Revoke bulk 0" }).click();
      await textIs(page.getByTestId("key-usage"), "19 of 20");
      await page.getByRole("button", { name: "Create key" }).click();
      await page.getByTestId("plaintext").waitFor();
      await page.getByLabel("Account").selectOption("acc_dev");
    },
    STEP_TIMEOUT_MS,
  );

  test(
    "an extension's fields save through the API; secrets are write-only; installs simulate; a listed extension is not deleted, and the page says why",
    async () => {
      await open("#/extensions/ext_board");
      await page.locator("#f-short").fill("Sixty sounds");
      await page.locator("#f-vis").selectOption("public");
      await page.getByRole("button", { name: "Save changes" }).click();
      await textIs(page.locator(".note.ok").first(), "Saved.");
      const ext = (await (await api("/extensions/ext_board")).json()) as {
        short_description: string;
        visibility: string;
      };
      expect(ext).toMatchObject({ short_description: "Sixty sounds", visibility: "public" });

      await page.locator("#secret-name").fill("WEBHOOK_SECRET");
      await page.locator("#secret-value").fill("typed-secret-value-7");
      await page.getByRole("button", { name: "Set secret" }).click();
      await page.getByRole("button", { name: "Delete secret WEBHOOK_SECRET" }).waitFor();
      expect(await page.locator("main").textContent()).not.toContain("typed-secret-value-7");
      expect(await page.locator("#secret-value").inputValue()).toBe("");
      expect(((await (await api("/extensions/ext_board/secrets")).json()) as { keys: string[] }).keys).toContain(
        "WEBHOOK_SECRET",
      );

      await page.locator("#inst-count").fill("2");
      await page.getByRole("button", { name: "Simulate installs" }).click();
      await textHas(page.locator("figure.bars"), "2.0.0");
      expect(((await (await api("/extensions/ext_board/installs")).json()) as { active: number }).active).toBe(2);

      await page.getByRole("button", { name: "Delete…" }).click();
      await page.getByRole("button", { name: "Yes, delete" }).click();
      await textHas(page.locator(".danger-zone .note.error"), "409 extension_listed");
      await textHas(page.locator(".danger-zone .note.error"), "never been publicly listed");
      expect((await api("/extensions/ext_board")).status).toBe(200);
    },
    STEP_TIMEOUT_MS,
  );

  test(
    "admin: clock, faults, overrides and disable/enable act through the control plane",
    async () => {
      await open("#/admin");
      await page.getByRole("tab", { name: "Clock", exact: true }).click();
      await page.getByLabel("Advance by (seconds)").fill("7200");
      await page.getByRole("button", { name: "Advance" }).click();
      await textHas(page.getByTestId("clock-now"), "offset 7200 s");
      await page.getByRole("button", { name: "Back to real time" }).click();
      await textHas(page.getByTestId("clock-now"), "offset 0 s");

      await page.getByRole("tab", { name: "Faults", exact: true }).click();
      await page.getByLabel("Path").fill("/extensions/ext_fault");
      await page.getByRole("button", { name: "Add fault" }).click();
      const remove = page.getByRole("button", { name: /^Remove fault flt_/ });
      await remove.waitFor();
      expect((await api("/extensions/ext_fault")).status).toBe(503);
      await remove.click();
      await countIs(remove, 0);
      expect((await api("/extensions/ext_fault")).status).toBe(404);

      await page.getByRole("tab", { name: "Overrides", exact: true }).click();
      await page.getByLabel("Add a limit").selectOption("max_secrets_per_extension");
      await page.getByRole("button", { name: "Add", exact: true }).click();
      await page.locator("#ov-max_secrets_per_extension").fill("30");
      await page.getByRole("button", { name: "Save overrides" }).click();
      await textIs(page.locator(".note.ok").first(), "Overrides saved.");
      expect(
        await (
          await fetch(`${server.adminUrl}/overrides/accounts/acc_dev`, {
            headers: { authorization: `Bearer ${server.adminToken}` },
          })
        ).json(),
      ).toMatchObject({
        overrides: { max_secrets_per_extension: 30 },
      });
      await page.getByRole("button", { name: "Remove all" }).click();
      await textIs(page.locator(".note.ok").first(), "Overrides removed.");

      await page.getByRole("tab", { name: "Extension status", exact: true }).click();
      await page.getByRole("button", { name: "Disable Sound Board" }).click();
      await page.getByRole("button", { name: "Enable Sound Board" }).waitFor();
      expect(((await (await api("/extensions/ext_board")).json()) as { status: string }).status).toBe("disabled");
      await page.getByRole("button", { name: "Enable Sound Board" }).click();
      await page.getByRole("button", { name: "Disable Sound Board" }).waitFor();
      expect(((await (await api("/extensions/ext_board")).json()) as { status: string }).status).toBe("approved");
    },
    STEP_TIMEOUT_MS,
  );

  test(
    "keyboard only: skip link, navigation, and a form submitted with Enter",
    async () => {
      await open("#/");
      await page.keyboard.press("Tab");
      expect(await page.evaluate<string | null>("document.activeElement?.textContent")).toBe("Skip to content");
      // Tab to the "API keys" link and follow it.
      for (
        let i = 0;
        i < 10 && (await page.evaluate<string | null>("document.activeElement?.textContent")) !== "API keys";
        i++
      )
        await page.keyboard.press("Tab");
      await page.keyboard.press("Enter");
      await textIs(page.locator("h1"), "API keys");
      for (let i = 0; i < 20 && (await page.evaluate<string | null>("document.activeElement?.id")) !== "key-name"; i++)
        await page.keyboard.press("Tab");
      expect(await page.evaluate<string | null>("document.activeElement?.id")).toBe("key-name");
      await page.keyboard.type("typed with keys");
      await page.keyboard.press("Enter");
      await page.getByTestId("plaintext").waitFor();
    },
    STEP_TIMEOUT_MS,
  );

  test(
    "the version's bundle: tree, manifest, and a sound that plays in <audio>",
    async () => {
      const versions = (await (await api("/extensions/ext_board/versions")).json()) as {
        versions: { id: string; version: string }[];
      };
      const v = versions.versions.find((x) => x.version === "2.0.0")!;
      await open(`#/extensions/ext_board/versions/${v.id}`);
      await textHas(page.locator("pre.manifest"), '"name": "s59"');
      await page.getByRole("button", { name: "Play sounds/s0.mp3 (MP3)" }).click();
      const audio = page.locator("audio").first();
      await audio.waitFor();
      expect(await audio.getAttribute("src")).toStartWith("blob:");
      expect(describeViolations(await seriousViolations(page))).toEqual([]);
      await shoot(page, "bundle", false);
    },
    STEP_TIMEOUT_MS,
  );

  test(
    "a rejected version's reason: under its status in the extension's versions, and on its bundle page",
    async () => {
      await open(`?account=acc_other#/extensions/${LONG_EXTENSION_ID}`);
      const row = page.locator('tr[data-version="1.1.0"]');
      await textIs(row.getByTestId("version-status"), "rejected");
      await textIs(row.getByTestId("reject-reason"), `Reason: ${REJECT_REASON}`);
      // An approved version has none.
      await textIs(page.locator('tr[data-version="1.0.0"]').getByTestId("version-status"), "approved");
      expect(await page.locator('tr[data-version="1.0.0"]').getByTestId("reject-reason").count()).toBe(0);
      await row.getByRole("link", { name: "1.1.0" }).click();
      await textIs(page.locator("h1"), "Bundle of Long Ids 1.1.0");
      await textIs(page.getByTestId("reject-reason"), `Reason: ${REJECT_REASON}`);
    },
    STEP_TIMEOUT_MS,
  );

  test(
    "without a session: the first-run page says to run `ext dashboard` and has nothing to fill in, since the dashboard never asks for the admin token; logged in on a wildcard bind, a reload keeps the session",
    async () => {
      const token = "adm_dashboard_test_token_0123456789";
      // A wildcard bind (as in a container) covers loopback, where the dashboard's *.localhost name leads.
      const remote = await startTestEmulator({ config: { host: "0.0.0.0", adminToken: token } });
      const ctx = await browser.newContext({ viewport: DESKTOP });
      try {
        const p = await ctx.newPage();
        await p.goto(`${remote.dashboardUrl}/#/`);
        await textIs(p.locator("h1"), "Open the dashboard");
        await textHas(
          p.locator("main"),
          "Run ext dashboard in the server's folder: it opens a page in your browser that logs it in",
        );
        await textHas(p.locator("main"), "The dashboard never asks for the admin token.");
        expect(await p.locator("input, textarea, select, button").count()).toBe(0);
        await logIn(p, { url: remote.url, adminToken: token });
        await textIs(p.locator("h1"), "Overview");
        await p.getByRole("cell", { name: "Test Developer" }).waitFor();
        // A new page load in the same tab does not ask again: the session is kept.
        await p.reload();
        await p.getByRole("cell", { name: "Test Developer" }).waitFor();
        const stored = await p.evaluate<string>("JSON.stringify([{ ...localStorage }, { ...sessionStorage }])");
        expect(stored).not.toContain(token);
        expect(stored).toContain("ext-dashboard-session");
        expect(await ctx.cookies()).toEqual([]);
      } finally {
        await ctx.close();
        await stopTestEmulator(remote);
      }
    },
    STEP_TIMEOUT_MS,
  );

  /** Both loopback addresses at `port`, taken by another program that records what comes and refuses it all. */
  function takePort(port: number) {
    const seen: { method: string; path: string; authorization: string | null; session: string | null }[] = [];
    const squatters = ["127.0.0.1", "::1"].map((hostname) =>
      Bun.serve({
        hostname,
        port,
        fetch(req) {
          seen.push({
            method: req.method,
            path: new URL(req.url).pathname,
            authorization: req.headers.get("authorization"),
            session: req.headers.get("x-ext-session"),
          });
          return Response.json({ error: { code: "unauthorized", message: "no", status: 401 } }, { status: 401 });
        },
      }),
    );
    return {
      seen,
      stop: () => {
        for (const squatter of squatters) squatter.stop(true);
      },
    };
  }

  /** A tab logged in to a server of its own, on its Overview (then `before`, if given); the server then stopped. */
  async function tabOfStoppedServer(token: string, before?: (p: Page) => Promise<void>) {
    const gone = await startTestEmulator({ config: { adminToken: token } });
    const ctx = await browser.newContext({ viewport: DESKTOP });
    const p = await ctx.newPage();
    await logIn(p, { url: gone.url, adminToken: token });
    await textIs(p.locator("h1"), "Overview");
    await p.getByRole("cell", { name: "Test Developer" }).waitFor();
    await before?.(p);
    await stopTestEmulator(gone);
    return { ctx, p, port: gone.port };
  }

  const STOPPED = "This emulator has stopped";
  /** Until the tab says its server has stopped. */
  const untilStopped = (p: Page) =>
    waitFor(async () => (await p.locator("h1").textContent()) === STOPPED, "the tab to say its server has stopped");
  /** Each page of `hashes`, visited: the tab still says only that its server has stopped. */
  async function staysStopped(p: Page, hashes: string[]) {
    for (const hash of hashes) {
      await p.evaluate(`location.hash = '${hash}'`);
      await textIs(p.locator("h1"), STOPPED);
    }
  }

  test(
    "a tab on the live Requests page ends when the server ends its stream: a program that takes the port at once gets nothing from it",
    async () => {
      const { ctx, p, port } = await tabOfStoppedServer("adm_dashboard_stream_token_0123456789", async (page) => {
        await page.evaluate("location.hash = '#/requests'");
        await textIs(page.getByTestId("live"), "live");
      });
      // Taken the moment the server let go, before the tab could notice anything.
      const taken = takePort(port);
      try {
        await untilStopped(p);
        await staysStopped(p, ["#/keys", "#/admin"]);
        expect(taken.seen).toEqual([]);
      } finally {
        taken.stop();
        await ctx.close();
      }
    },
    STEP_TIMEOUT_MS,
  );

  test(
    "a tab whose server stopped says so and sends nothing more: another program answering 401 at its port gets no token screen, so no typed token",
    async () => {
      const token = "adm_dashboard_ended_token_0123456789";
      const { ctx, p, port } = await tabOfStoppedServer(token);
      let taken: ReturnType<typeof takePort> | null = null;
      try {
        taken = takePort(port);
        // The admin page asks for its review queue every 2 s: a call meets either the closed port's refusal or the
        // newcomer's 401; either ends the tab.
        await p.evaluate("location.hash = '#/admin'");
        await untilStopped(p);
        expect(await p.locator("input").count()).toBe(0);
        const after = taken.seen.length;
        await staysStopped(p, ["#/keys"]);
        expect(taken.seen.length).toBe(after);
        // At most the first request after the stop carried the session (nothing could know before); no login, no token.
        expect(taken.seen.filter((r) => r.path === "/dashboard/login" || r.authorization?.includes(token))).toEqual([]);
      } finally {
        taken?.stop();
        await ctx.close();
      }
    },
    STEP_TIMEOUT_MS,
  );

  test(
    "a tab whose request finds its server gone (nothing at the port) ends there: whoever takes the port later gets nothing from it, no session, no key, no body",
    async () => {
      const token = "adm_dashboard_refused_token_0123456789";
      const { ctx, p, port } = await tabOfStoppedServer(token);
      let taken: ReturnType<typeof takePort> | null = null;
      try {
        // The keys page does not poll: its load is the tab's first request after the stop, refused by the closed port.
        await p.evaluate("location.hash = '#/keys'");
        await untilStopped(p);
        taken = takePort(port);
        await staysStopped(p, ["#/admin", "#/extensions", "#/"]);
        expect(taken.seen.filter((r) => r.session !== null || r.authorization !== null)).toEqual([]);
      } finally {
        taken?.stop();
        await ctx.close();
      }
    },
    STEP_TIMEOUT_MS,
  );

  test(
    "the login leaves no cookie, a session only this origin's storage holds, and no code or secret in the address bar",
    async () => {
      expect(await context.cookies()).toEqual([]);
      const secret = await page.evaluate<string | null>("localStorage.getItem('ext-dashboard-session')");
      expect(secret).toMatch(/^[A-Za-z0-9_-]{43}$/);
      expect(secret).not.toBe(server.adminToken);
      await open("#/");
      expect(page.url()).not.toContain("token");
      expect(page.url()).not.toContain("code");
      expect(page.url()).not.toContain(secret!);
      // Every control-plane call carries it as a header (a cookie would go to every port of the host).
      const sent = page.waitForRequest((r) => r.url().includes("/_emulator/"));
      await page.reload();
      expect((await sent).headers()["x-ext-session"]).toBe(secret!);
    },
    STEP_TIMEOUT_MS,
  );

  test(
    "`ext dashboard` logs the real browser in through its private page, under the page's own policy: the code in a form body only (Origin null), never in a URL; the page gone once used, and a copy of it refused",
    async () => {
      const tmp = mkdtempSync(join(tmpdir(), "ext-dashboard-login-"));
      const ctx = await browser.newContext();
      try {
        const cli = Bun.spawn([built.bin, "dashboard", "--no-browser", "--target", server.url], {
          cwd: built.work,
          env: cleanEnv({ EXT_ADMIN_TOKEN: server.adminToken, TMPDIR: tmp }),
          stdout: "pipe",
          stderr: "pipe",
        });
        const stderr = readAsItComes(cli.stderr);
        const fileUrl = await waitFor(() => /open (file:\/\/\S+) in a browser/.exec(stderr.text())?.[1], "the page");
        const html = readFileSync(fileURLToPath(fileUrl), "utf8");
        const code = /name="code" value="([^"]+)"/.exec(html)![1]!;
        const p = await ctx.newPage();
        const requests: { url: string; method: string; origin?: string; body: string | null }[] = [];
        p.on("request", (r) =>
          requests.push({ url: r.url(), method: r.method(), origin: r.headers().origin, body: r.postData() }),
        );
        const console: string[] = [];
        p.on("console", (m) => console.push(m.text()));
        await p.goto(fileUrl);
        await p.getByRole("cell", { name: "Dev Studio" }).waitFor();
        expect(await cli.exited).toBe(0);
        expect(await new Response(cli.stdout).text()).toBe(
          `logged in: the dashboard is at ${server.dashboardUrl}/ (a new address each start)\n`,
        );
        expect(existsSync(fileURLToPath(fileUrl))).toBe(false);
        const posted = requests.filter((r) => r.method === "POST" && r.url.endsWith("/dashboard/login"));
        expect(posted).toEqual([
          { url: `${server.dashboardUrl}/dashboard/login`, method: "POST", origin: "null", body: `code=${code}` },
        ]);
        for (const r of requests) expect(r.url).not.toContain(code);
        // The account goes into the address once the page chose it, which may be just after its first rows show.
        await p.waitForURL(`${server.dashboardUrl}/?account=acc_dev`);
        expect(console.filter((m) => m.includes("Content Security Policy"))).toEqual([]);
        expect(await ctx.cookies()).toEqual([]);
        // The same page again (a copy kept before it was used), in a browser not logged in: the code is spent.
        const copy = join(tmp, "copy.html");
        writeFileSync(copy, html, { mode: 0o600 });
        const again = await browser.newContext();
        try {
          const replay = await again.newPage();
          const answered = replay.waitForResponse((r) => r.url() === `${server.dashboardUrl}/dashboard/login`);
          await replay.goto(pathToFileURL(copy).href);
          const res = await answered;
          expect(res.status()).toBe(401);
          expect(((await res.json()) as { error: { message: string } }).error.message).toContain("used up or wrong");
        } finally {
          await again.close();
        }
      } finally {
        await ctx.close();
        rmSync(tmp, { recursive: true, force: true });
      }
    },
    STEP_TIMEOUT_MS,
  );

  test(
    "a login credential in a URL, opened in the browser, is refused with the envelope and logs nothing in",
    async () => {
      const ctx = await browser.newContext();
      try {
        const p = await ctx.newPage();
        const res = await p.goto(`${server.dashboardUrl}/dashboard/login?token=${server.adminToken}`);
        expect(res?.status()).toBe(400);
        expect(((await res!.json()) as { error: { code: string } }).error.code).toBe("bad_request");
        expect(p.url()).not.toContain("#session=");
        expect(await p.evaluate<string | null>("localStorage.getItem('ext-dashboard-session')")).toBeNull();
      } finally {
        await ctx.close();
      }
    },
    STEP_TIMEOUT_MS,
  );

  test(
    "a link with a session the server refuses (any page can open one) leaves this browser's login as it was",
    async () => {
      const secret = await page.evaluate<string | null>("localStorage.getItem('ext-dashboard-session')");
      expect(secret).not.toBeNull();
      await page.goto("about:blank");
      await page.goto(`${server.dashboardUrl}/#session=not-a-session`);
      await page.getByRole("cell", { name: "Dev Studio" }).waitFor();
      expect(await page.evaluate<string | null>("localStorage.getItem('ext-dashboard-session')")).toBe(secret);
      expect(page.url()).not.toContain("not-a-session");
    },
    STEP_TIMEOUT_MS,
  );

  // Last: it wipes the state the other tests built.
  test(
    "admin: load a fixture, then reset back to the start-up fixture",
    async () => {
      await open("#/admin");
      await page.getByRole("tab", { name: "Reset and fixtures" }).click();
      await page
        .getByLabel(/^Or paste a fixture/)
        .fill(JSON.stringify({ accounts: [{ id: "acc_loaded", name: "Loaded From UI" }] }));
      await page.getByRole("button", { name: "Load fixture" }).click();
      await textIs(page.locator(".note.ok").first(), "Fixture loaded: 1 account, 0 extensions, 0 API keys created.");
      await page.getByRole("option", { name: /Loaded From UI/ }).waitFor({ state: "attached" });
      await page.getByLabel(/^Or paste a fixture/).fill("{ not json");
      await page.getByRole("button", { name: "Load fixture" }).click();
      await textIs(page.locator("#fixture-error"), "The fixture is not valid JSON (line 1, column 3).");
      await page.getByRole("button", { name: "Reset…" }).click();
      await page.getByRole("button", { name: "Yes, reset" }).click();
      await textIs(page.locator(".note.ok").first(), "Emulator reset.");
      await countIs(page.getByRole("option", { name: /Loaded From UI/ }), 0);
      const accounts = (
        (await (
          await fetch(`${server.adminUrl}/accounts`, { headers: { authorization: `Bearer ${server.adminToken}` } })
        ).json()) as {
          accounts: { id: string; extensions: number }[];
        }
      ).accounts;
      expect(accounts.map((a) => [a.id, a.extensions]).sort()).toEqual([
        ["acc_dev", 1],
        ["acc_other", 1],
      ]);
    },
    STEP_TIMEOUT_MS,
  );
});
