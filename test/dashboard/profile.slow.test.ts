/**
 * The dashboard's Profile page in a real headless Chromium against the compiled binary: with `ext serve
 * --profile FILE` it lists each entry in words (what the platform does, what the spec says, where it was
 * seen); without one it says how to make one. axe-core on both, at desktop and phone widths.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Browser } from "playwright-core";
import { BUILD_TIMEOUT_MS, type Built, buildBinary, serve } from "../binary/helpers";
import {
  browserAvailable,
  CARD_SPILL,
  describeViolations,
  launchBrowser,
  logIn,
  OFF_SCREEN,
  seriousViolations,
} from "../helpers/browser";

const enabled = browserAvailable();
const STEP_TIMEOUT_MS = 60_000;
const PROFILE = {
  profileVersion: 1,
  target: "https://platform.example",
  observedAt: "2026-11-22T10:00:00.000Z",
  entries: [
    {
      operation: "GET /developer/v1/extensions/{id}/secrets",
      answer: 200,
      difference: "field-renamed",
      path: "keys",
      observed: "names",
      evidence: {
        source: "conformance",
        check: "secrets.list",
        target: "https://platform.example",
        at: "2026-11-22T10:00:00.000Z",
      },
    },
    {
      operation: "GET /developer/v1/extensions",
      answer: 401,
      difference: "error-field",
      field: "code",
      observed: "invalid_key",
    },
  ],
};

describe.skipIf(!enabled)("the dashboard's Profile page", () => {
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

  async function profilePage(args: string[]) {
    const server = await serve(built.bin, ["--memory", "--seed", "demo", ...args], built.work);
    // bypassCSP: axe-core is injected as an inline script, which the dashboard's policy refuses.
    const page = await browser.newPage({ bypassCSP: true });
    await logIn(page, server);
    await page.goto(`${server.dashboardUrl}/#/profile`);
    return { server, page };
  }

  test(
    "with a profile: each entry in words, naming both sides, and where it was seen",
    async () => {
      const file = join(mkdtempSync(join(tmpdir(), "ext-profile-page-")), "platform.json");
      writeFileSync(file, JSON.stringify(PROFILE));
      const { server, page } = await profilePage(["--profile", file]);
      try {
        await page.getByRole("heading", { name: "What changes" }).waitFor();
        const rows = page.getByRole("region", { name: "Profile entries" }).locator("tbody tr");
        expect(await rows.count()).toBe(2);
        expect((await rows.nth(0).textContent())?.replace(/\s+/g, " ")).toBe(
          "GET /developer/v1/extensions/{id}/secrets200field-renamedkeys is sent as names: ext's name for it is keysconformance check secrets.list, https://platform.example, 2026-11-22T10:00:00.000Z",
        );
        // What the server quotes between backticks is shown as code, without the backticks.
        expect(await rows.nth(1).textContent()).toContain(
          "error.code invalid_key is not the spec's code for 401: the spec's is unauthorized",
        );
        expect(
          await rows
            .nth(1)
            .locator("code", { hasText: /^unauthorized$/ })
            .count(),
        ).toBe(1);
        expect(await page.locator("main").textContent()).not.toContain("`");
        expect(await page.locator("dl.facts").textContent()).toContain(file);
        for (const viewport of [
          { width: 1280, height: 800 },
          { width: 390, height: 844 },
        ]) {
          await page.setViewportSize(viewport);
          expect(describeViolations(await seriousViolations(page))).toEqual([]);
          // On a phone each entry is a card: a heading of three lines ("What the platform does") makes its row
          // taller rather than running into the next one; nothing reaches past the screen.
          const where = viewport.width;
          expect({ where, spill: await page.evaluate<string[]>(CARD_SPILL) }).toEqual({ where, spill: [] });
          expect({ where, off: await page.evaluate<string[]>(OFF_SCREEN) }).toEqual({ where, off: [] });
        }
      } finally {
        await page.close();
        await server.stop();
      }
    },
    STEP_TIMEOUT_MS,
  );

  test(
    "without one: the spec's answers, and the commands that make one",
    async () => {
      const { server, page } = await profilePage([]);
      try {
        await page.getByRole("heading", { name: "No profile: the spec's answers" }).waitFor();
        expect(await page.locator("main").textContent()).toContain("--save-profile platform.json");
        // Its copy button is named as every other one ("Copy curl command").
        await page.getByRole("button", { name: "Copy profile commands" }).waitFor();
        expect(describeViolations(await seriousViolations(page))).toEqual([]);
      } finally {
        await page.close();
        await server.stop();
      }
    },
    STEP_TIMEOUT_MS,
  );
});
