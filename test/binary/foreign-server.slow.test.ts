/**
 * A command pointed at a server that is not `ext` (a web server on that port, a dev server's page), from
 * the compiled binary: it says what it found at that address, never the page's raw HTML.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { BUILD_TIMEOUT_MS, type Built, buildBinary, run } from "./helpers";

let built: Built;
let foreign: ReturnType<typeof Bun.serve>;
let origin: string;

const PAGE_404 = "<!doctype html><html><head><title>404 Not Found</title></head><body><h1>Not Found</h1></body></html>";
const PAGE_APP = "<!doctype html><html><head><title>My App</title></head><body>Welcome</body></html>";

beforeAll(() => {
  built = buildBinary();
  foreign = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    fetch(req) {
      const html = { "content-type": "text/html; charset=utf-8", server: "nginx/1.25.3" };
      // Under /app every path is the same single-page app (200); elsewhere, a web server's 404 page.
      if (new URL(req.url).pathname.startsWith("/app/")) return new Response(PAGE_APP, { headers: html });
      return new Response(PAGE_404, { status: 404, headers: html });
    },
  });
  origin = `http://127.0.0.1:${foreign.port}`;
  mkdirSync(join(built.work, "my-ext"));
  writeFileSync(join(built.work, "my-ext", "manifest.json"), '{"version":"1.0.0"}');
}, BUILD_TIMEOUT_MS);
afterAll(() => {
  foreign?.stop(true);
  built?.cleanup();
});

const HINT = "Is --target (or EXT_BASE_URL) the address `ext serve` printed?";

describe("a server that is not ext", () => {
  test.each([
    ["deploy", ["deploy", "my-ext", "--extension", "ext_1", "--api-key", "k", "--target", "ORIGIN"]],
    ["extensions list", ["extensions", "list", "--api-key", "k", "--target", "ORIGIN"]],
    ["logs", ["logs", "--target", "ORIGIN"]],
  ])("ext %s: a 404 page is named by its title and server, in one line", async (_name, args) => {
    const r = await run(
      built.bin,
      args.map((a) => a.replace("ORIGIN", origin)),
      { cwd: built.work },
    );
    expect(r.code).toBe(1);
    expect(r.stderr).not.toContain("<");
    const lines = r.stderr.trimEnd().split("\n");
    expect(lines).toHaveLength(1);
    expect(lines[0]).toStartWith(`error: ${origin} did not answer as an ext emulator: GET /`);
    expect(lines[0]).toEndWith(`got 404 with an HTML page titled "404 Not Found" from nginx/1.25.3. ${HINT}`);
  });

  test("a page answered with 200 (a single-page app on every path) is not taken for JSON", async () => {
    const r = await run(built.bin, ["extensions", "list", "--api-key", "k", "--target", `${origin}/app`], {
      cwd: built.work,
    });
    expect(r.code).toBe(1);
    expect(r.stderr).toBe(
      `error: ${origin} did not answer as an ext emulator: GET /app/developer/v1/extensions got 200 with an HTML page titled "My App" from nginx/1.25.3. ${HINT}\n`,
    );
  });
});
