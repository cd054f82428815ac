/**
 * The CLI's calls through client/, over real sockets: the deploy's upload is a multipart stream from disk
 * with an exact Content-Length and its progress; refusals print as the CLI always has (the envelope's
 * `status code: message` and details; another server's status and text); --json keeps the envelope.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describeError, errorJson } from "../../tools/calls/api-error";
import { apiClient, call, endpointsFromAnyUrl } from "../../tools/calls/http";
import { scaffoldFiles } from "../../tools/cli/lib/scaffold";
import { deploy } from "../../tools/deploy/deploy";

interface Seen {
  contentLength: string | null;
  contentType: string;
  bytes: number;
  /** The form's fields as the server reads them; the bundle by its size. */
  fields: { version: unknown; changelog: unknown; bundleBytes: number | undefined };
}

let server: ReturnType<typeof Bun.serve>;
let root: string;
let dir: string;
const seen: Seen[] = [];

beforeAll(() => {
  server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    async fetch(req) {
      const path = new URL(req.url).pathname;
      if (path.endsWith("/limits")) return Response.json({ limits: {} });
      if (req.method === "POST" && path.endsWith("/versions")) {
        const raw = new Uint8Array(await req.arrayBuffer());
        const contentType = req.headers.get("content-type") ?? "";
        const form = await new Request(req.url, { method: "POST", headers: { "content-type": contentType }, body: raw })
          .formData()
          .catch(() => null);
        const bundle = form?.get("bundle");
        const fields = {
          version: form?.get("version"),
          changelog: form?.get("changelog"),
          bundleBytes: bundle instanceof Blob ? bundle.size : undefined,
        };
        seen.push({ contentLength: req.headers.get("content-length"), contentType, bytes: raw.length, fields });
        return Response.json({ version: { id: "ver_1", status: "pending" } }, { status: 201 });
      }
      if (path.endsWith("/refused"))
        return Response.json(
          {
            error: {
              code: "validation_error",
              message: "Request failed validation: name is blank",
              status: 422,
              details: [{ field: "name", message: "must not be blank" }, { message: "and one more" }],
            },
          },
          { status: 422 },
        );
      return new Response("<html>Bad Gateway</html>", { status: 502, headers: { "content-type": "text/html" } });
    },
  });
  root = `http://127.0.0.1:${server.port}`;
  dir = mkdtempSync(join(tmpdir(), "ext-calls-"));
  for (const [name, content] of Object.entries(scaffoldFiles("calls-test"))) {
    mkdirSync(join(dir, name, ".."), { recursive: true });
    writeFileSync(join(dir, name), content);
  }
});

afterAll(() => {
  server.stop(true);
  rmSync(dir, { recursive: true, force: true });
});

describe("ext deploy's upload", () => {
  test("streams the packed archive with an exact Content-Length, fields and file as the form says", async () => {
    const notes: string[] = [];
    const result = await deploy({
      dir,
      extensionId: "ext_1",
      version: "1.2.3",
      changelog: "first",
      apiKey: "ext_test_key",
      endpoints: endpointsFromAnyUrl(root),
      build: null,
      dryRun: false,
      wait: false,
      timeoutSeconds: 5,
      note: (l) => notes.push(l),
      tty: false,
    });
    expect(result.versionId).toBe("ver_1");
    expect(seen.length).toBe(1);
    const { contentType, contentLength, bytes, fields } = seen[0] as Seen;
    expect(contentType).toStartWith("multipart/form-data; boundary=");
    expect(Number(contentLength)).toBe(bytes);
    expect(fields).toEqual({ version: "1.2.3", changelog: "first", bundleBytes: result.bundle.bytes });
    // Progress counted the file's bytes as they went.
    expect(result.upload).toEqual({
      url: `${root}/developer/v1/extensions/ext_1/versions`,
      sent: result.bundle.bytes,
      total: result.bundle.bytes,
    });
  });
});

describe("a refusal as the CLI prints it", () => {
  test("the API's envelope: `status code: message`, one line per detail; --json gives the envelope", async () => {
    const api = apiClient(endpointsFromAnyUrl(root), "ext_test_key");
    const e = await call(() => api.GET("/developer/v1/extensions/{id}", { params: { path: { id: "refused" } } })).catch(
      (x) => x,
    );
    expect(describeError(e)).toBe(
      "422 validation_error: Request failed validation: name is blank\n  - name: must not be blank\n  - and one more",
    );
    expect(errorJson(e)).toEqual({
      code: "validation_error",
      message: "Request failed validation: name is blank",
      status: 422,
      details: [{ field: "name", message: "must not be blank" }, { message: "and one more" }],
    });
  });

  test("another server's answer: what was found at that address, not its raw HTML", async () => {
    const api = apiClient(endpointsFromAnyUrl(root), "ext_test_key");
    const e = await call(() => api.GET("/developer/v1/extensions")).catch((x) => x);
    const said = `${root} did not answer as an ext emulator: GET /developer/v1/extensions got 502 with an HTML page. Is --target (or EXT_BASE_URL) the address \`ext serve\` printed?`;
    expect(describeError(e)).toBe(said);
    expect(errorJson(e)).toEqual({ message: said, status: 502 });
  });

  test("nothing listening: one line naming the server", async () => {
    const gone = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: () => new Response("") });
    const url = `http://127.0.0.1:${gone.port}`;
    gone.stop(true);
    const api = apiClient(endpointsFromAnyUrl(url), "ext_test_key");
    const e = await call(() => api.GET("/developer/v1/extensions")).catch((x) => x);
    expect(describeError(e)).toStartWith(`cannot reach ${url} (`);
    expect(describeError(e)).toEndWith("); is the emulator running?");
  });
});
