/**
 * Row 5: the dashboard's first load per page in headless Chromium (Debian's /usr/bin/chromium through
 * playwright-core): a fresh browser context each time (empty cache), from navigation to the page's heading
 * shown with no "Loading…" left — the HTML, script, style sheet and the page's own API calls, over loopback,
 * against the compiled emulator with the demo fixture. Each context starts logged in (the session in its
 * storage, as a login leaves it), so the page shown is the one asked for, not the login prompt.
 */
import { existsSync } from "node:fs";
import { loadavg } from "node:os";
import { chromium, type Page } from "playwright-core";
import { DEMO_FIXTURE } from "../lib/paths";
import type { BenchSection } from "../lib/results";
import { dashboardSession, type Emulator, startEmulator, stopEmulator } from "../lib/servers";
import type { Settings } from "../lib/settings";
import { round, type Summary, summarize } from "../lib/stats";

const CHROMIUM = "/usr/bin/chromium";
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
const PAGES = [
  ["Overview", "#/"],
  ["API keys", "#/keys"],
  ["Extensions", "#/extensions"],
  ["Developer limits", "#/limits"],
  ["Admin", "#/admin"],
  ["Requests", "#/requests"],
] as const;

export interface DashboardRow {
  page: string;
  summary: Summary;
}

export interface DashboardResult {
  rows: DashboardRow[];
  /** Why the section did not run, when so. */
  skipped?: string;
  /** When and under what load it ran (it may be merged into a report of another run). */
  measuredAt?: string;
  loadAvgAtStart?: number[];
}

async function firstLoads(settings: Settings, log: (line: string) => void): Promise<DashboardResult> {
  if (!existsSync(CHROMIUM)) return { rows: [], skipped: `no Chromium at ${CHROMIUM} (apt-get install -y chromium)` };
  const runs = settings.quick ? 3 : 10;
  const measuredAt = new Date().toISOString();
  const loadAvgAtStart = loadavg().map((n) => Math.round(n * 100) / 100);
  const emu = await startEmulator({ seed: DEMO_FIXTURE });
  // Stopped whatever happens: a server left running would keep the bench from exiting once its report is written.
  try {
    return { rows: await pageLoads(emu, runs, log), measuredAt, loadAvgAtStart };
  } finally {
    await stopEmulator(emu);
  }
}

/** Each page's first loads, `runs` times after one untimed load, on the run's own dashboard origin. */
async function pageLoads(emu: Emulator, runs: number, log: (line: string) => void): Promise<DashboardRow[]> {
  const { origin, name, value } = await dashboardSession(emu);
  // Every context opens logged in, as the owner's browser does after `ext dashboard`.
  const storageState = { cookies: [], origins: [{ origin, localStorage: [{ name, value }] }] };
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: ARGS });
  const rows: DashboardRow[] = [];
  try {
    for (const [page, hash] of PAGES) {
      const times: number[] = [];
      // One untimed load first: the server builds nothing per request, but the browser's own start-up is not the page's.
      for (let i = 0; i <= runs; i++) {
        // bypassCSP: the wait below is evaluated in the page, which the dashboard's CSP (no eval) would refuse;
        // what the page loads is the same.
        const context = await browser.newContext({
          viewport: { width: 1280, height: 800 },
          bypassCSP: true,
          storageState,
        });
        const tab = await context.newPage();
        const t0 = performance.now();
        await tab.goto(`${origin}/${hash}`);
        await tab.waitForFunction(
          `document.querySelector("h1") !== null && !document.body.textContent.includes("Loading…")`,
        );
        if (i > 0) times.push(performance.now() - t0);
        else await expectPage(tab, page);
        await context.close();
      }
      const s = summarize(times);
      rows.push({
        page,
        summary: { n: s.n, median: round(s.median), p95: round(s.p95), min: round(s.min), max: round(s.max) },
      });
      log(`  ${page}: median ${rows.at(-1)!.summary.median} ms`);
    }
  } finally {
    await browser.close();
  }
  return rows;
}

/** The page shown is the one asked for with its data (not a refusal or a login prompt), or the figures mean nothing. */
async function expectPage(tab: Page, page: string): Promise<void> {
  const heading = (await tab.textContent("h1"))?.trim();
  const alert = await tab.$("[role=alert]");
  if (heading !== page || alert)
    throw new Error(
      `the dashboard showed "${heading}"${alert ? ` and "${await alert.textContent()}"` : ""} for ${page}`,
    );
}

/** The Markdown of this section, for the report. */
function dashboardReport(result: DashboardResult): string[] {
  const head =
    "## Dashboard first load (headless Chromium, empty cache, loopback: navigation → heading shown with its data)";
  if (result.skipped) return [head, "", `Not measured: ${result.skipped}.`, ""];
  const when = result.measuredAt
    ? [
        `Measured ${result.measuredAt.slice(0, 16).replace("T", " ")} UTC at load ${result.loadAvgAtStart?.join(" ") ?? "?"} (2 cores shared with other work: read the medians as an upper bound).`,
        "",
      ]
    : [];
  return [
    head,
    "",
    ...when,
    "| page | median ms | p95 ms | min ms | max ms | runs |",
    "|---|---|---|---|---|---|",
    ...result.rows.map(
      (r) =>
        `| ${r.page} | ${r.summary.median} | ${r.summary.p95} | ${r.summary.min} | ${r.summary.max} | ${r.summary.n} |`,
    ),
    "",
  ];
}

export const dashboard: BenchSection<DashboardResult> = {
  id: "dashboard",
  label: "dashboard first load",
  run: ({ settings, log }) => firstLoads(settings, log),
  render: (result) => dashboardReport(result),
};
