/**
 * The admin page's "Export state" and "Load a fixture or an export", in a real headless Chromium against two
 * compiled binaries: the export downloads a real tar (fixture.json + the bundle), loading it into an empty
 * server through the upload gives the same state, and a refused file shows the API's code and message once
 * and changes nothing.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createHash } from "node:crypto";
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Browser, Locator, Page } from "playwright-core";
import { BUILD_TIMEOUT_MS, type Built, buildBinary, run, type ServedBinary, serve } from "../binary/helpers";
import { browserAvailable, launchBrowser, logIn, until } from "../helpers/browser";
import { entriesOf, tarOf } from "../helpers/tar-entries";

const KEY = "ext_state_transfer_key_0123456789abcdef";
const FIXTURE = {
  accounts: [
    {
      id: "acc_dev",
      name: "Dev Studio",
      apiKeys: [{ name: "ci", key: KEY, scopes: ["*"] }],
      extensions: [{ id: "ext_board", name: "Sound Board" }],
    },
  ],
};
const STEP_TIMEOUT_MS = 60_000;
const enabled = browserAvailable();

const textOf = async (l: Locator) => ((await l.first().textContent({ timeout: 500 })) ?? "").trim();
const textMatches = (l: Locator, expected: RegExp) =>
  until(`${l} to match ${expected}`, async () => expected.test(await textOf(l)));

const sha256 = (bytes: Uint8Array) => createHash("sha256").update(bytes).digest("hex");

describe.skipIf(!enabled)("dashboard: export state and load it back", () => {
  let built: Built;
  let browser: Browser;
  let source: ServedBinary;
  let target: ServedBinary;
  let files: string;
  let exported: Buffer;
  let exportedName: string;

  beforeAll(async () => {
    [built, browser] = await Promise.all([Promise.resolve(buildBinary()), launchBrowser()]);
    writeFileSync(join(built.work, "fixture.json"), JSON.stringify(FIXTURE));
    [source, target] = await Promise.all([
      serve(built.bin, ["--memory", "--seed", "fixture.json", "--no-rate-limits"], built.work),
      serve(built.bin, ["--memory", "--empty", "--no-rate-limits"], built.work),
    ]);
    files = mkdtempSync(join(built.work, "files-"));
  }, BUILD_TIMEOUT_MS);

  afterAll(async () => {
    await browser?.close();
    await Promise.all([source?.stop(), target?.stop()]);
    built?.cleanup();
  });

  /** A page on a fresh context (downloads allowed), with every request it sends and every console error. */
  async function pageOn(server: ServedBinary, hash: string) {
    const context = await browser.newContext({ acceptDownloads: true });
    const page = await context.newPage();
    const requests: string[] = [];
    const consoleErrors: string[] = [];
    page.on("request", (r) => requests.push(`${r.method()} ${new URL(r.url()).pathname}`));
    page.on("console", (m) => m.type() === "error" && consoleErrors.push(m.text()));
    await logIn(page, server);
    await page.goto(`${server.dashboardUrl}/${hash}`);
    await page.locator("h1").first().waitFor();
    return { page, requests, consoleErrors, close: () => context.close() };
  }
  const developer = (server: ServedBinary, path: string) =>
    fetch(`${server.baseUrl}${path}`, { headers: { authorization: `Bearer ${KEY}` } }).then((r) => r.text());
  const state = async (server: ServedBinary) =>
    (
      (await (
        await fetch(`${server.adminUrl}/state`, { headers: { authorization: `Bearer ${server.adminToken}` } })
      ).json()) as { counts: Record<string, number> }
    ).counts;

  /** The two loading forms: each shows its own answer, beside its own button. */
  const fileForm = (page: Page) => page.locator("form").filter({ has: page.locator("#seed-file") });
  const pasteForm = (page: Page) => page.locator("form").filter({ has: page.locator("#fixture") });

  /** Loads `name` (written with `bytes`) through the upload form. */
  async function upload(page: Page, name: string, bytes: Uint8Array | string) {
    const path = join(files, name);
    writeFileSync(path, bytes);
    await page.getByLabel("Fixture (.json) or export (.tar)").setInputFiles(path);
    await page.getByRole("button", { name: "Load file" }).click();
  }

  test(
    "Export state downloads a real tar: fixture.json, then the bundle under its SHA-256",
    async () => {
      // A state worth carrying: an approved version with a real bundle, installs, a secret.
      const dir = mkdtempSync(join(built.work, "ext-"));
      mkdirSync(join(dir, "sounds"));
      writeFileSync(join(dir, "sounds/boom.mp3"), Buffer.from("ID3\x03\x00\x00\x00\x00\x00\x00boom"));
      writeFileSync(
        join(dir, "manifest.json"),
        JSON.stringify({ version: "1.0.0", sounds: [{ name: "boom", file: "sounds/boom.mp3" }] }),
      );
      const deployed = await run(
        built.bin,
        ["deploy", dir, "--extension", "ext_board", "--api-key", KEY, "--target", source.baseUrl],
        { cwd: built.work },
      );
      expect(deployed.code).toBe(0);
      const versions = JSON.parse(await developer(source, "/extensions/ext_board/versions")) as {
        versions: { id: string }[];
      };
      const versionId = versions.versions[0]!.id;
      const post = (path: string, body?: unknown) =>
        fetch(`${source.adminUrl}${path}`, {
          method: "POST",
          headers: { "content-type": "application/json", authorization: `Bearer ${source.adminToken}` },
          body: body === undefined ? undefined : JSON.stringify(body),
        });
      expect((await post(`/versions/${versionId}/approve`)).status).toBe(200);
      expect((await post("/extensions/ext_board/installs", { count: 1234 })).status).toBe(200);
      const secret = await fetch(`${source.baseUrl}/extensions/ext_board/secrets/API_TOKEN`, {
        method: "PUT",
        headers: { authorization: `Bearer ${KEY}`, "content-type": "application/json" },
        body: JSON.stringify({ value: "never-in-the-export" }),
      });
      expect(secret.status).toBe(204);

      const { page, consoleErrors, close } = await pageOn(source, "#/admin/state");
      try {
        const [download] = await Promise.all([
          page.waitForEvent("download"),
          page.getByRole("button", { name: "Export state" }).click(),
        ]);
        exportedName = download.suggestedFilename();
        expect(exportedName).toMatch(/^ext-export-\d{4}-\d{2}-\d{2}T\d{2}-\d{2}-\d{2}Z\.tar$/);
        const saved = join(files, exportedName);
        await download.saveAs(saved);
        exported = readFileSync(saved);
        await textMatches(page.locator(".note.ok"), new RegExp(`^Exported ${exportedName.replaceAll(".", "\\.")} \\(`));

        const entries = await entriesOf(exported);
        expect(entries[0]![0]).toBe("fixture.json");
        const bundles = entries.filter(([name]) => name.startsWith("bundles/"));
        expect(bundles.length).toBe(1);
        const [bundleName, bundleBytes] = bundles[0]!;
        expect(bundleName).toBe(`bundles/${sha256(bundleBytes)}.tar.gz`);
        const document = JSON.parse(entries[0]![1].toString("utf8")) as { accounts: { extensions: unknown[] }[] };
        expect(JSON.stringify(document)).toContain(sha256(bundleBytes));
        expect(JSON.stringify(document)).toContain("API_TOKEN");
        expect(exported.toString("latin1")).not.toContain("never-in-the-export");
        expect(consoleErrors).toEqual([]);
      } finally {
        await close();
      }
    },
    STEP_TIMEOUT_MS,
  );

  test(
    "a refused file shows the API's code and message once and changes nothing; a .json with bad syntax is not sent",
    async () => {
      const entries = await entriesOf(exported);
      const fixture = JSON.parse(entries[0]![1].toString("utf8")) as Record<string, unknown>;
      const withFixture = (text: string) => tarOf([["fixture.json", Buffer.from(text)], ...entries.slice(1)]);
      const [bundleName, bundleBytes] = entries[1]!;
      const damaged = Buffer.from(bundleBytes);
      damaged[damaged.length - 1] = damaged[damaged.length - 1]! ^ 0xff;
      const refused: [string, Uint8Array, RegExp][] = [
        // Cut inside the bundle: the archive ends with it (padded to 512) and two zero blocks.
        [
          "truncated.tar",
          exported.subarray(0, exported.length - 1024 - 300),
          /truncated or damaged in entry "bundles\//,
        ],
        ["newer.tar", await withFixture(JSON.stringify({ ...fixture, formatVersion: 99 })), /format 99 is newer/],
        ["digest.tar", await tarOf([entries[0]!, [bundleName, damaged]]), /does not match its digest/],
        ["bad-json.tar", await withFixture("{ not json"), /not valid JSON/],
      ];
      const before = await state(target);
      const { page, requests, consoleErrors, close } = await pageOn(target, "#/admin/state");
      try {
        for (const [name, bytes, message] of refused) {
          await upload(page, name, bytes);
          const error = fileForm(page).locator(".note.error");
          await textMatches(error, /^422 \w+: /);
          expect({ name, text: await textOf(error) }).toEqual({ name, text: expect.stringMatching(message) });
          // Once, by the file's own form: one note, no list of details under it, nothing by the paste box.
          expect(await page.locator(".note.error").count()).toBe(1);
          expect(await pasteForm(page).locator(".note").count()).toBe(0);
          expect(await page.locator(".note.error li").count()).toBe(0);
          expect(await state(target)).toEqual(before);
        }
        // A .json file is checked before sending: a syntax error is the field's message, and no request goes out.
        const sent = requests.length;
        await upload(page, "broken.json", '{"accounts": [\n  {"id": "acc_x",, }\n]}');
        await textMatches(
          page.locator("#seed-file-error"),
          /^broken\.json is not valid JSON \(line 2, column \d+\)\.$/,
        );
        expect(await page.getByLabel("Fixture (.json) or export (.tar)").getAttribute("aria-invalid")).toBe("true");
        // An empty file (or a blank fixture) is said to be empty, not "required"; nothing is sent either.
        const empty: [string, string][] = [
          ["empty.json", ""],
          ["blank.json", " \n\t\n"],
          ["empty.tar", ""],
        ];
        for (const [name, bytes] of empty) {
          await upload(page, name, bytes);
          await textMatches(
            page.locator("#seed-file-error"),
            new RegExp(`^${name.replace(".", "\\.")} is empty: choose a file with a fixture or an export in it\\.$`),
          );
        }
        expect(requests.slice(sent)).toEqual([]);
        expect(await state(target)).toEqual(before);
        // The browser logs each refused upload as a failed load; nothing else may reach the console.
        expect(consoleErrors.filter((e) => !/status of 422/.test(e))).toEqual([]);
      } finally {
        await close();
      }
    },
    STEP_TIMEOUT_MS,
  );

  test(
    "the export loaded into an empty server through the upload: it says what it loaded and the pages show it",
    async () => {
      const { page, consoleErrors, close } = await pageOn(target, "#/admin/state");
      try {
        await upload(page, exportedName, exported);
        await textMatches(
          fileForm(page).locator(".note.ok"),
          new RegExp(
            `^${exportedName.replaceAll(".", "\\.")} loaded: 1 account, 1 extension, \\d+ API keys? created\\.$`,
          ),
        );
        expect(await pasteForm(page).locator(".note").count()).toBe(0);
        await page.getByRole("option", { name: /Dev Studio/ }).waitFor({ state: "attached" });
        // Every developer-API read answers as the exported server did.
        for (const path of [
          "/extensions/ext_board",
          "/extensions/ext_board/versions",
          "/extensions/ext_board/installs",
          "/extensions/ext_board/secrets",
        ])
          expect({ path, body: await developer(target, path) }).toEqual({ path, body: await developer(source, path) });

        await page.goto(`${target.dashboardUrl}/?account=acc_dev#/extensions/ext_board/installs`);
        await textMatches(page.locator("h1"), /^Sound Board$/);
        await textMatches(page.locator("#installs-h + p"), /Total 1234/);
        await page.goto(`${target.dashboardUrl}/?account=acc_dev#/extensions/ext_board/secrets`);
        await page.getByText("API_TOKEN", { exact: true }).waitFor();

        // A pasted fixture's answer is by the paste box, and the file form's earlier answer is gone.
        await page.goto(`${target.dashboardUrl}/#/admin/state`);
        await upload(page, "again.tar", exported);
        await textMatches(fileForm(page).locator(".note.ok"), /^again\.tar loaded: everything in it already existed/);
        await page
          .getByLabel("Or paste a fixture")
          .fill(JSON.stringify({ accounts: [{ id: "acc_pasted", name: "Pasted" }] }));
        await page.getByRole("button", { name: "Load fixture" }).click();
        await textMatches(
          pasteForm(page).locator(".note.ok"),
          /^Fixture loaded: 1 account, 0 extensions, 0 API keys created\.$/,
        );
        expect(await fileForm(page).locator(".note").count()).toBe(0);
        expect(consoleErrors).toEqual([]);
      } finally {
        await close();
      }
    },
    STEP_TIMEOUT_MS,
  );
});
