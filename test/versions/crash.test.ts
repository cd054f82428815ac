import { Database } from "bun:sqlite";
import { afterAll, describe, expect, test } from "bun:test";
import { existsSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { validEntries } from "../../scripts/lib/samples";
import { bundleDir } from "../helpers/bundles";
import { baseFixture, DEMO_KEY } from "../helpers/emulator";
import { type ServerProcess, spawnServer, writeFixture } from "../helpers/subprocess";
import { waitFor } from "../helpers/wait-for";

const dir = mkdtempSync(join(tmpdir(), "ext-crash-"));
const dataDir = join(dir, "data");
const bundles = bundleDir();
let server: ServerProcess | undefined;
afterAll(async () => {
  await server?.stop("SIGKILL");
  rmSync(dir, { recursive: true, force: true });
  bundles.cleanup();
});

function upload(baseUrl: string, _label: string, body: Bun.BodyInit | ReadableStream<Uint8Array>, boundary?: string) {
  const headers: Record<string, string> = { authorization: `Bearer ${DEMO_KEY}` };
  if (boundary) headers["content-type"] = `multipart/form-data; boundary=${boundary}`;
  return fetch(`${baseUrl}/extensions/ext_crash/versions`, {
    method: "POST",
    headers,
    body: body as Bun.BodyInit,
  }).catch(() => null);
}

function form(label: string, file: string): FormData {
  const f = new FormData();
  f.append("version", label);
  f.append("bundle", Bun.file(file), "b.tar.gz");
  return f;
}

/** An upload that sends its first bytes, then stalls: it is mid-stream when the server dies. */
function stalledBody(label: string, boundary: string): ReadableStream<Uint8Array> {
  let sent = false;
  return new ReadableStream({
    async pull(controller) {
      if (sent) return new Promise(() => {}); // never more
      sent = true;
      controller.enqueue(
        new TextEncoder().encode(
          `--${boundary}\r\nContent-Disposition: form-data; name="version"\r\n\r\n${label}\r\n--${boundary}\r\nContent-Disposition: form-data; name="bundle"; filename="b.tar.gz"\r\n\r\n`,
        ),
      );
      controller.enqueue(new Uint8Array(512 * 1024).fill(7));
    },
  });
}

function consistency() {
  const db = new Database(join(dataDir, "ext.sqlite"), { readonly: true });
  const rows = db
    .query<{ bundle_blob_id: string }, []>("SELECT bundle_blob_id FROM versions")
    .all()
    .map((r) => r.bundle_blob_id);
  db.close();
  const objects = readdirSync(join(dataDir, "blobs", "objects"));
  return { rows, objects, temps: readdirSync(join(dataDir, "blobs", "tmp")) };
}

describe("POST /extensions/:id/versions across a SIGKILL", () => {
  test("a server killed in the middle of uploads restarts consistent: no row without blob, no blob without row, no temp file", async () => {
    const fixture = baseFixture();
    fixture.accounts[0]!.extensions = [{ id: "ext_crash", name: "Crash" }];
    const seed = writeFixture(dir, fixture);
    server = await spawnServer(dataDir, seed);
    const small = await bundles.make();
    const large = await bundles.make(
      validEntries({ entries: [{ name: "assets/noise.bin", generated: { size: 3 * 1024 * 1024, fill: "random" } }] }),
    );

    for (const label of ["1", "2", "3"])
      expect((await upload(server.baseUrl, label, form(label, small)))?.status).toBe(202);
    const inFlight = [
      ...["s1", "s2", "s3"].map((l) => upload(server!.baseUrl, l, stalledBody(l, `B${l}`), `B${l}`)),
      ...["l1", "l2", "l3", "l4", "l5", "l6"].map((l) => upload(server!.baseUrl, l, form(l, large))),
    ];
    // Kill once uploads are visibly mid-stream (temp files exist), and some of the large ones may be committing.
    const tmp = join(dataDir, "blobs", "tmp");
    await waitFor(() => readdirSync(tmp).length >= 3, "three uploads' temp files");
    await server.stop("SIGKILL");
    await Promise.all(inFlight);

    // Restart on the same data directory: the start-up sweep runs, then stop cleanly and look at the disk.
    server = await spawnServer(dataDir, seed);
    const listed = (await (
      await fetch(`${server.baseUrl}/extensions/ext_crash/versions`, {
        headers: { authorization: `Bearer ${DEMO_KEY}` },
      })
    ).json()) as { versions: unknown[] };
    await server.stop("SIGTERM");
    server = undefined;

    const { rows, objects, temps } = consistency();
    expect(rows.length).toBeGreaterThanOrEqual(3);
    expect(listed.versions.length).toBe(rows.length);
    expect([...objects].sort()).toEqual([...rows].sort());
    for (const id of rows) expect(existsSync(join(dataDir, "blobs", "objects", id))).toBe(true);
    expect(temps).toEqual([]);
  }, 60_000);
});
