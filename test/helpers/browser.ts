/**
 * Real headless Chromium for the dashboard tests: playwright-core drives Debian's /usr/bin/chromium (never a
 * downloaded browser). Without it, the browser tests skip with one line on a developer machine, so `npm test`
 * works on a fresh clone with only Node and npm; under CI=true a missing Chromium is a failure.
 */
import { existsSync } from "node:fs";
import { createRequire } from "node:module";
import { type Browser, type BrowserContext, chromium, type Page } from "playwright-core";
import { dashboardOriginOf, writeLoginPage } from "../../tools/cli/lib/login-page";

export const CHROMIUM = process.env.EXT_TEST_CHROMIUM ?? "/usr/bin/chromium";
/**
 * Debian's headless shell of the same Chromium (package chromium-headless-shell): the same Blink and V8 without
 * the browser's own layers, at about half the CPU of the full browser for these tests (a suite run is CPU-bound).
 * The full browser where a kept profile matters (launchWithProfile); the full one too when the shell is missing.
 */
const HEADLESS_SHELL = process.env.EXT_TEST_CHROMIUM_SHELL ?? "/usr/lib/chromium/chromium-headless-shell";
export const IN_CI = process.env.CI === "true";

/** True when the browser tests can run; prints the one skip line otherwise; throws under CI. */
export function browserAvailable(): boolean {
  if (existsSync(CHROMIUM)) return true;
  if (IN_CI)
    throw new Error(
      `${CHROMIUM} is missing: CI runs the dashboard's browser tests (.ci/run installs chromium with apt-get)`,
    );
  console.warn(
    `skipping the dashboard browser tests: no Chromium at ${CHROMIUM} (apt-get install -y chromium chromium-headless-shell to run them)`,
  );
  return false;
}

/**
 * How long a page may take to draw the API reference (/docs): Scalar's 3.5 MB script, then the whole document, a
 * few CPU-seconds alone. In CI it shares two cores with the other browser tests, and one drawing there has taken
 * close to a minute. A bound so that a page that never draws fails by name.
 */
export const REFERENCE_DRAW_MS = 90_000;

/** Flags for a closed network: without the background ones Chromium keeps dialling hosts it cannot reach. */
const ARGS = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
];

export function launchBrowser(): Promise<Browser> {
  const executablePath = existsSync(HEADLESS_SHELL) ? HEADLESS_SHELL : CHROMIUM;
  return chromium.launch({ executablePath, args: ARGS });
}

/**
 * A browser with a profile kept in `dir` (service workers, storage): closed and opened again, it remembers. The
 * full browser: the shell does not always bring a kept profile's service worker back to life.
 */
export function launchWithProfile(dir: string): Promise<BrowserContext> {
  return chromium.launchPersistentContext(dir, { executablePath: CHROMIUM, args: ARGS });
}

const AXE_PATH = createRequire(import.meta.url).resolve("axe-core/axe.min.js");

export interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  nodes: { target: string[] }[];
}

/** The axe rules whose outcome depends on colours: all that a second colour scheme can change. */
export const COLOUR_RULES = ["color-contrast", "link-in-text-block"];

/** axe-core on the page as it is now (every rule, or only `rules`); returns the serious and critical violations. */
export async function seriousViolations(page: Page, rules?: string[]): Promise<AxeViolation[]> {
  if (!(await page.evaluate<boolean>("'axe' in window"))) await page.addScriptTag({ path: AXE_PATH });
  // Only violations are read: axe then collects no passing or inapplicable nodes, and only they cross to the test.
  const options = JSON.stringify({
    resultTypes: ["violations"],
    ...(rules ? { runOnly: { type: "rule", values: rules } } : {}),
  });
  const violations = await page.evaluate<AxeViolation[]>(`axe.run(document, ${options}).then((r) => r.violations)`);
  return violations.filter((v) => v.impact === "serious" || v.impact === "critical");
}

/** "color-contrast on .badge (2 nodes)": readable in a failed expectation. */
export const describeViolations = (vs: AxeViolation[]) =>
  vs.map((v) => `${v.id} (${v.impact}): ${v.help} — ${v.nodes.map((n) => n.target.join(" ")).join(", ")}`);

/**
 * In the page: what reaches past either edge of the screen. The page's own scroll width, and every control
 * of `main` (buttons and fields fully on the screen; a link at least starting on it), wherever it sits —
 * inside a table too, since a button there is no easier to reach.
 */
export const OFF_SCREEN = `(() => {
  const out = [];
  const root = document.documentElement;
  if (root.scrollWidth > innerWidth) out.push("page scroll width " + root.scrollWidth);
  for (const el of document.querySelectorAll("main button, main input, main select, main textarea, main a")) {
    const r = el.getBoundingClientRect();
    if (r.width === 0 && r.height === 0) continue;
    const isLink = el.tagName === "A";
    if (r.left < 0 || (isLink ? r.left >= innerWidth : r.right > innerWidth + 1))
      out.push(el.tagName.toLowerCase() + " " + (el.getAttribute("aria-label") || el.textContent || el.id).trim().slice(0, 40) + " " + Math.round(r.left) + "–" + Math.round(r.right) + "px");
  }
  return out;
})()`;

/**
 * In the page, on a phone (tables as cards): the card cells whose heading, or whose value, does not fit in the
 * cell and so runs into the next row (a heading of three lines beside a value of one, a word wider than the
 * card). The cell's scroll box holds whatever spills out of it.
 */
export const CARD_SPILL = `[...document.querySelectorAll(".table-wrap td[data-label]")]
  .filter((td) => td.getClientRects().length > 0 && (td.scrollHeight > td.clientHeight + 1 || td.scrollWidth > td.clientWidth + 1))
  .map((td) => td.dataset.label + ": " + td.textContent.trim().slice(0, 40) + " (" + td.scrollWidth + "×" + td.scrollHeight + " in " + td.clientWidth + "×" + td.clientHeight + ")")`;

/**
 * Polls until `check` holds (a page updates on its own time); a check that throws (an element not there
 * yet) counts as not yet. Fails naming what it waited for.
 */
export async function until(what: string, check: () => Promise<boolean>, timeoutMs = 10_000): Promise<void> {
  const deadline = performance.now() + timeoutMs;
  while (!(await check().catch(() => false))) {
    if (performance.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await Bun.sleep(50);
  }
}

/**
 * Logs a page's browser context in to a server's dashboard as `ext dashboard` does: a fresh one-time code from
 * the control plane (with the admin token), written into the same private page `ext dashboard` writes
 * (tools/cli/lib/login-page.ts) and opened from its file, which posts the code in a form body; the page is
 * removed once the browser is logged in. The dashboard keeps the session in its origin's localStorage, so the
 * context's other pages share it. The page ends on this run's dashboard origin (`http://<label>.localhost:port`,
 * the only place the dashboard is served), which is returned.
 */
export async function logIn(page: Page, server: { url: string; adminToken: string }): Promise<string> {
  const minted = await fetch(`${server.url}/_emulator/dashboard-login`, {
    method: "POST",
    headers: { authorization: `Bearer ${server.adminToken}` },
  });
  if (minted.status !== 200) throw new Error(`no login code: ${minted.status} ${await minted.text()}`);
  const { code, loginUrl } = (await minted.json()) as { code: string; loginUrl: string };
  const origin = dashboardOriginOf(loginUrl, server.url);
  const loginPage = writeLoginPage(origin, code);
  try {
    await page.goto(loginPage.url);
    // The page keeps the session once the server has accepted it (its first control-plane answer). Polled with
    // evaluate: a waitForFunction predicate is run by eval, which the dashboard's policy forbids.
    await until("the dashboard to keep its session", async () =>
      page.evaluate<boolean>(
        "location.protocol === 'http:' && localStorage.getItem('ext-dashboard-session') !== null && location.hash === ''",
      ),
    );
    return origin;
  } finally {
    loginPage.remove();
  }
}
