/**
 * The dashboard of an emulator with no account (`ext serve --empty`), in a real headless Chromium against the
 * compiled binary: it says what to do next and offers it, and never calls the API with an empty account id.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Browser, Page } from "playwright-core";
import { BUILD_TIMEOUT_MS, type Built, buildBinary, type ServedBinary, serve } from "../binary/helpers";
import {
  browserAvailable,
  describeViolations,
  launchBrowser,
  logIn,
  seriousViolations,
  until,
} from "../helpers/browser";

const enabled = browserAvailable();

const STEP_TIMEOUT_MS = 60_000;

describe.skipIf(!enabled)("dashboard with no account", () => {
  let built: Built;
  let browser: Browser;
  beforeAll(async () => {
    built = buildBinary();
    browser = await launchBrowser();
  }, BUILD_TIMEOUT_MS);
  afterAll(async () => {
    await browser?.close();
    built?.cleanup();
  });

  /** A fresh `--empty` server and a page on its dashboard, with every request URL the page makes. */
  async function emptyDashboard(): Promise<{ server: ServedBinary; page: Page; requested: string[] }> {
    const server = await serve(built.bin, ["--memory", "--empty"], built.work);
    // bypassCSP: axe-core is injected as an inline script, which the dashboard's policy refuses.
    const page = await browser.newPage({ bypassCSP: true });
    const requested: string[] = [];
    page.on("request", (r) => requested.push(r.url()));
    await logIn(page, server);
    await page.getByRole("heading", { name: "No account yet" }).waitFor();
    return { server, page, requested };
  }

  test(
    "says what to do next; creating an account leads to the overview; no call with an empty account id",
    async () => {
      const { server, page, requested } = await emptyDashboard();
      try {
        expect(describeViolations(await seriousViolations(page))).toEqual([]);
        // The fixture format's rules, checked before sending: one message under the field, no request.
        const sent = requested.length;
        const problem = page.locator("#new-account-error");
        await page.getByRole("button", { name: "Create account" }).click();
        await problem.waitFor();
        expect(await problem.textContent()).toBe("Account name is required.");
        await page.getByLabel("Account name").fill("n".repeat(101));
        await page.getByRole("button", { name: "Create account" }).click();
        await until(
          "the length message",
          async () => (await problem.textContent()) === "Account name can have at most 100 characters (101 now).",
        );
        expect(await page.getByLabel("Account name").getAttribute("aria-invalid")).toBe("true");
        expect(requested.slice(sent)).toEqual([]);
        await page.getByLabel("Account name").fill("My Studio");
        await page.getByRole("button", { name: "Create account" }).click();
        await page.getByRole("heading", { name: "Overview" }).waitFor();
        expect(await page.locator("#account option").first().textContent()).toContain("My Studio");
        expect(requested.some((u) => u.includes("/accounts//"))).toBe(false);
      } finally {
        await page.close();
        await server.stop();
      }
    },
    STEP_TIMEOUT_MS,
  );

  test(
    "loads the demo account on request",
    async () => {
      const { server, page } = await emptyDashboard();
      try {
        await page.getByRole("button", { name: "Load the demo" }).click();
        await page.getByRole("heading", { name: "Overview" }).waitFor();
        const res = await fetch(`${server.adminUrl}/accounts`, {
          headers: { authorization: `Bearer ${server.adminToken}` },
        });
        expect(((await res.json()) as { accounts: { id: string }[] }).accounts.map((a) => a.id)).toContain("acc_demo");
      } finally {
        await page.close();
        await server.stop();
      }
    },
    STEP_TIMEOUT_MS,
  );
});
