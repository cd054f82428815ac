import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { audioFile } from "../../scripts/lib/archive-writer";
import { validEntries } from "../../scripts/lib/samples";
import { bundleDir, createExtension, submitVersion, uploadVersion } from "../helpers/bundles";
import {
  DEMO_KEY,
  expectEnvelope,
  OTHER_KEY,
  READ_KEY,
  type RequestOptions,
  startTestEmulator,
  stopTestEmulator,
  type TestEmulator,
} from "../helpers/emulator";
import { announce } from "../helpers/raw-http";

let emu: TestEmulator;
const bundles = bundleDir();
let valid: string;
beforeAll(async () => {
  emu = await startTestEmulator();
  valid = await bundles.make();
});
afterAll(async () => {
  await stopTestEmulator(emu);
  bundles.cleanup();
});

const tempFiles = () => readdirSync(join(emu.dataDir, "blobs", "tmp"));
const blobFiles = () => readdirSync(join(emu.dataDir, "blobs", "objects"));
const byId = (id: string) => ({ params: { path: { id } } });
const versionsOf = async (id: string) =>
  (await emu.client.GET("/developer/v1/extensions/{id}/versions", byId(id))).data?.versions;
/** A submission the typed client would not send (a cut, empty or JSON body, a hand-made form): raw, as DEMO_KEY. */
const postRaw = (id: string, opts: Omit<RequestOptions, "key">) =>
  emu.rawRequest("POST", `/developer/v1/extensions/${id}/versions`, { key: DEMO_KEY, ...opts });

describe("POST /extensions/:id/versions", () => {
  test("202 with the pending version; the extension goes draft → in_review; bundle stored with its SHA-256", async () => {
    const id = await createExtension(emu, "Submit OK");
    const res = await uploadVersion(emu, id, { version: "1.0.0", changelog: "First", bundle: valid });
    expect(res.response.status).toBe(202);
    expect(Object.keys(res.data ?? {})).toEqual(["version"]);
    expect(res.data?.version).toEqual({
      id: expect.stringMatching(/^ver_/),
      version: "1.0.0",
      status: "pending",
      submittedAt: expect.any(String),
    });
    expect((await emu.client.GET("/developer/v1/extensions/{id}", byId(id))).data?.status).toBe("in_review");
    const row = emu.runtime.services.versions.findById(res.data?.version.id ?? "");
    expect(row.bundleSha256).toBe(
      new Bun.CryptoHasher("sha256").update(await Bun.file(valid).arrayBuffer()).digest("hex"),
    );
    expect(row.bundleSizeBytes).toBe(Bun.file(valid).size);
    expect(emu.runtime.blobs.exists(row.bundleBlobId)).toBe(true);
    expect(tempFiles()).toEqual([]);
    // The whole body was read: the connection stays open for the next request.
    expect(res.response.headers.get("connection")).not.toBe("close");
  });

  test("a sound over 5 MB is accepted with warnings", async () => {
    const id = await createExtension(emu, "Warned");
    const big = await bundles.make(
      validEntries({
        manifest: { sounds: [{ name: "big", file: "sounds/big.wav" }] },
        entries: [{ name: "sounds/big.wav", data: audioFile("WAV", 5.5 * 1024 * 1024) }],
      }),
    );
    const res = await uploadVersion(emu, id, { version: "1.0.0", bundle: big });
    expect(res.response.status).toBe(202);
    expect(res.data?.warnings).toEqual([expect.stringContaining("sounds/big.wav")]);
    // Stored with the version: its sound count and its warnings.
    const row = emu.runtime.services.versions.findById(res.data?.version.id ?? "");
    expect(row.soundCount).toBe(1);
    expect(JSON.parse(row.warnings)).toEqual(res.data?.warnings);
  });

  test("409 version_exists on a duplicate label; nothing stored", async () => {
    const id = await createExtension(emu, "Dup");
    expect((await uploadVersion(emu, id, { version: "2.0.0", bundle: valid })).response.status).toBe(202);
    const blobs = blobFiles().length;
    const res = await uploadVersion(emu, id, { version: "2.0.0", bundle: valid });
    expectEnvelope(res, 409, "version_exists");
    // Every refusal of an upload closes the connection (the body may be part-read; docs/behaviour.md).
    expect(res.response.headers.get("connection")).toBe("close");
    expect(blobFiles().length).toBe(blobs);
    expect(tempFiles()).toEqual([]);
  });

  test("422 bundle_invalid lists every problem by path; nothing stored", async () => {
    const id = await createExtension(emu, "Bad Bundle");
    const bad = await bundles.make([
      ...validEntries({ sounds: 51 }),
      { name: "../escape.js", data: "x" },
      { name: "assets/l", type: "symlink", linkname: "/etc" },
    ]);
    const blobs = blobFiles().length;
    const err = expectEnvelope(await submitVersion(emu, id, { version: "1.0.0", bundle: bad }), 422, "bundle_invalid");
    expect(err.details!.map((d: any) => d.path).sort()).toEqual(["../escape.js", "assets/l", "manifest.json"]);
    expect(blobFiles().length).toBe(blobs);
    expect(tempFiles()).toEqual([]);
    expect(await versionsOf(id)).toEqual([]);
    expect((await emu.client.GET("/developer/v1/extensions/{id}", byId(id))).data?.status).toBe("draft");
  });

  test("422 validation_error on version label rules, each naming the field", async () => {
    const id = await createExtension(emu, "Labels");
    for (const label of ["", "-1.0", ".x", "1.0 beta", "a".repeat(65), "1/2", "é1"]) {
      const err = expectEnvelope(
        await submitVersion(emu, id, { version: label, bundle: valid }),
        422,
        "validation_error",
      );
      expect(err.details).toEqual([expect.objectContaining({ field: "version" })]);
    }
    for (const label of ["1", "1.0.0-beta.1+build.5", "v2_final", "a".repeat(64)]) {
      expect((await submitVersion(emu, id, { version: label, bundle: valid })).status).toBe(202);
    }
    // Characters (code points), like every length of the API: 10,000 emoji fit, one more does not.
    expect(
      (await submitVersion(emu, id, { version: "9.9.8", changelog: "🎵".repeat(10_000), bundle: valid })).status,
    ).toBe(202);
    expectEnvelope(
      await submitVersion(emu, id, { version: "9.9.7", changelog: "🎵".repeat(10_001), bundle: valid }),
      422,
      "validation_error",
    );
    const long = expectEnvelope(
      await submitVersion(emu, id, { version: "9.9.9", changelog: "x".repeat(10_001), bundle: valid }),
      422,
      "validation_error",
    );
    expect(long.details).toEqual([expect.objectContaining({ field: "changelog" })]);
    expect(tempFiles()).toEqual([]);
  });

  test("422 when the bundle is missing, or an unknown part is sent", async () => {
    const id = await createExtension(emu, "Parts");
    expect(expectEnvelope(await submitVersion(emu, id, { version: "1.0.0" }), 422, "validation_error").details).toEqual(
      [expect.objectContaining({ field: "bundle" })],
    );
    // Field problems come together, in one 422.
    const all = expectEnvelope(
      await submitVersion(emu, id, { version: "-bad", changelog: "x".repeat(10_001) }),
      422,
      "validation_error",
    );
    expect(all.details!.map((d) => d.field)).toEqual(["version", "changelog", "bundle"]);
    const unknown = expectEnvelope(
      await submitVersion(emu, id, { version: "1.0.0", bundle: valid, extra: { notes: "hi" } }),
      422,
      "validation_error",
    );
    expect(unknown.details).toEqual([expect.objectContaining({ field: "notes" })]);
    expect(tempFiles()).toEqual([]);
  });

  test("checks run in order, first refusal wins: form (422) → duplicate label (409) → inspection (422 bundle_invalid)", async () => {
    const id = await createExtension(emu, "Check Order");
    expect((await submitVersion(emu, id, { version: "1.0.0", bundle: valid })).status).toBe(202);
    const bad = await bundles.make([...validEntries(), { name: "../escape.js", data: "x" }]);
    // Duplicate label + bad bundle: the label is checked before the archive is inspected.
    expectEnvelope(await submitVersion(emu, id, { version: "1.0.0", bundle: bad }), 409, "version_exists");
    // Bad form + duplicate label: the form is checked first (an unknown part, or a field rule).
    expect(
      expectEnvelope(
        await submitVersion(emu, id, { version: "1.0.0", bundle: valid, extra: { notes: "hi" } }),
        422,
        "validation_error",
      ).details,
    ).toEqual([expect.objectContaining({ field: "notes" })]);
    expect(
      expectEnvelope(
        await submitVersion(emu, id, { version: "1.0.0", changelog: "x".repeat(10_001), bundle: valid }),
        422,
        "validation_error",
      ).details,
    ).toEqual([expect.objectContaining({ field: "changelog" })]);
    // Bad form + bad bundle: the form's 422, not the bundle's.
    expectEnvelope(
      await submitVersion(emu, id, { version: "2.0.0", changelog: "x".repeat(10_001), bundle: bad }),
      422,
      "validation_error",
    );
    // Only a good form with a new label reaches the inspection.
    expectEnvelope(await submitVersion(emu, id, { version: "2.0.0", bundle: bad }), 422, "bundle_invalid");
    expect(tempFiles()).toEqual([]);
  });

  test("a repeated part, bundle sent as a text field, or version sent as a file is a 422 naming the field", async () => {
    const id = await createExtension(emu, "Odd Parts");
    const file = () => Bun.file(valid);
    const post = async (build: (form: FormData) => void) => {
      const form = new FormData();
      build(form);
      return expectEnvelope(await postRaw(id, { body: form }), 422, "validation_error").details;
    };
    expect(
      await post(
        (f) => (f.append("version", "1.0.0"), f.append("version", "1.0.1"), f.append("bundle", file(), "b.tar.gz")),
      ),
    ).toEqual([{ field: "version", message: expect.stringContaining("more than once") }]);
    expect(
      await post(
        (f) => (
          f.append("version", "1.0.0"), f.append("bundle", file(), "a.tar.gz"), f.append("bundle", file(), "b.tar.gz")
        ),
      ),
    ).toEqual([{ field: "bundle", message: expect.stringContaining("more than once") }]);
    expect(await post((f) => (f.append("version", "1.0.0"), f.append("bundle", "H4sIAAAA")))).toEqual([
      { field: "bundle", message: expect.stringContaining("not a text field") },
    ]);
    expect(
      await post((f) => (f.append("version", new Blob(["1.0.0"]), "v.txt"), f.append("bundle", file(), "b.tar.gz"))),
    ).toEqual([{ field: "version", message: expect.stringContaining("text field") }]);
    expect(await versionsOf(id)).toEqual([]);
    expect(tempFiles()).toEqual([]);
  });

  test("an archive over bundle_total_bytes that fits in the form overhead is a 422 bundle_invalid at (archive)", async () => {
    const id = await createExtension(emu, "Just Over");
    const size = Bun.file(valid).size;
    const cap = async (bytes: number) =>
      expect(
        (
          await emu.control.PUT("/_emulator/overrides/extensions/{id}", {
            ...byId(id),
            body: { bundle_total_bytes: bytes },
          })
        ).response.status,
      ).toBe(200);
    await cap(size - 1);
    const err = expectEnvelope(
      await submitVersion(emu, id, { version: "1.0.0", bundle: valid }),
      422,
      "bundle_invalid",
    );
    expect(err.details).toEqual([
      expect.objectContaining({ path: "(archive)", limit: "bundle_total_bytes", max: size - 1, current: size }),
    ]);
    expect(tempFiles()).toEqual([]);
    await cap(size); // exactly at the limit is allowed
    expect((await submitVersion(emu, id, { version: "1.0.0", bundle: valid })).status).toBe(202);
  });

  test("422 naming the body when the multipart body is cut short, or the bundle when it is empty", async () => {
    const id = await createExtension(emu, "Broken Form");
    const headers = { "content-type": "multipart/form-data; boundary=x" };
    const cut = '--x\r\nContent-Disposition: form-data; name="version"\r\n\r\n1.0';
    const malformed = expectEnvelope(await postRaw(id, { body: cut, headers }), 422, "validation_error");
    expect(malformed.details).toEqual([{ field: "body", message: "the multipart/form-data body could not be parsed" }]);
    expect(malformed.message).toBe("Request failed validation: the multipart/form-data body could not be parsed");
    const empty = expectEnvelope(await postRaw(id, { body: "", headers }), 422, "validation_error");
    expect(empty.details).toEqual([{ field: "bundle", message: "bundle is required (the multipart body is empty)" }]);
    expect(tempFiles()).toEqual([]);
  });

  test("415 when the body is not multipart", async () => {
    const id = await createExtension(emu, "Not Multipart");
    expectEnvelope(await postRaw(id, { json: { version: "1.0.0" } }), 415, "unsupported_media_type");
    expectEnvelope(
      await postRaw(id, {
        body: await Bun.file(valid).arrayBuffer(),
        headers: { "content-type": "application/gzip" },
      }),
      415,
      "unsupported_media_type",
    );
  });

  test("413 when Content-Length announces more than the cap, answered before the body is sent", async () => {
    const id = await createExtension(emu, "Too Big");
    // Announce 60 MB, send only the headers, and read the answer without sending a byte of body.
    const answer = await announce(
      emu.port,
      "POST",
      `/developer/v1/extensions/${id}/versions`,
      { Authorization: `Bearer ${DEMO_KEY}`, "Content-Type": "multipart/form-data; boundary=x" },
      60 * 1024 * 1024,
    );
    expect(answer.status).toBe(413);
    expect(answer.body.error).toMatchObject({ code: "payload_too_large", status: 413 });
  });

  test("404 for another account's extension, 403 without versions:write", async () => {
    const id = await createExtension(emu, "Mine");
    // The extension is looked up before a byte of the body is read: answered with only the head sent.
    const early = await announce(
      emu.port,
      "POST",
      `/developer/v1/extensions/${id}/versions`,
      { Authorization: `Bearer ${OTHER_KEY}`, "Content-Type": "multipart/form-data; boundary=x" },
      1024,
    );
    expect(early.body.error).toMatchObject({ code: "extension_not_found", status: 404 });
    const missing = await submitVersion(emu, id, { version: "1.0.0", bundle: valid }, OTHER_KEY);
    expectEnvelope(missing, 404, "extension_not_found");
    expect(missing.headers.get("connection")).not.toBe("close"); // before the body: dropped, the connection kept
    const forbidden = await submitVersion(emu, id, { version: "1.0.0", bundle: valid }, READ_KEY);
    expectEnvelope(forbidden, 403, "forbidden");
    expect(forbidden.headers.get("connection")).not.toBe("close"); // answered before the body is touched
    expect(tempFiles()).toEqual([]);
  });
});

describe("GET /extensions/:id/versions", () => {
  test("newest first, with the list fields; approvedAt only on approved ones", async () => {
    const id = await createExtension(emu, "Listing");
    const ids: string[] = [];
    for (const v of ["1.0.0", "1.1.0", "2.0.0"])
      ids.push(
        (await uploadVersion(emu, id, { version: v, changelog: `cl ${v}`, bundle: valid })).data?.version.id ?? "",
      );
    emu.runtime.services.versions.approveVersion(ids[1]!);
    const res = await emu.clientFor(READ_KEY).GET("/developer/v1/extensions/{id}/versions", byId(id));
    expect(res.response.status).toBe(200);
    expect(res.data?.versions.map((v) => v.version)).toEqual(["2.0.0", "1.1.0", "1.0.0"]);
    const [newest, approved] = res.data?.versions ?? [];
    expect(Object.keys(newest ?? {}).sort()).toEqual([
      "bundleSizeBytes",
      "changelog",
      "id",
      "status",
      "submittedAt",
      "version",
    ]);
    expect(approved).toMatchObject({
      status: "approved",
      approvedAt: expect.any(String),
      changelog: "cl 1.1.0",
      bundleSizeBytes: Bun.file(valid).size,
    });
  });

  test("unknown query parameters are ignored, as on every GET; a bad include is still a 422", async () => {
    const id = await createExtension(emu, "Queried");
    await uploadVersion(emu, id, { version: "1.0.0", bundle: valid });
    const plain = await emu.client.GET("/developer/v1/extensions/{id}/versions", byId(id));
    // Parameters the document does not have, and a value it does not allow: raw.
    const versionsWith = (query: string) =>
      emu.rawRequest("GET", `/developer/v1/extensions/${id}/versions?${query}`, { key: DEMO_KEY });
    for (const query of ["page=2", "limit=1&cursor=abc", "include=archived&page=2"]) {
      const res = await versionsWith(query);
      expect(res.status).toBe(200);
      expect(res.body).toEqual(plain.data);
    }
    expect(expectEnvelope(await versionsWith("include=everything"), 422, "validation_error").details).toEqual([
      expect.objectContaining({ field: "include" }),
    ]);
  });

  test("404 for another account's extension", async () => {
    const id = await createExtension(emu, "Hidden");
    expectEnvelope(
      await emu.clientFor(OTHER_KEY).GET("/developer/v1/extensions/{id}/versions", byId(id)),
      404,
      "extension_not_found",
    );
  });

  test("the 101st version archives the oldest; archived ones only with ?include=archived", async () => {
    const id = await createExtension(emu, "Hundred");
    const tiny = await bundles.make([{ name: "manifest.json", data: "{}" }]);
    const first = (await uploadVersion(emu, id, { version: "0", bundle: tiny })).data?.version.id ?? "";
    emu.runtime.services.versions.approveVersion(first); // current: never archived
    let second = "";
    for (let i = 1; i <= 100; i++) {
      const res = await uploadVersion(emu, id, { version: String(i), bundle: tiny });
      expect(res.response.status).toBe(202);
      if (i === 1) second = res.data?.version.id ?? "";
    }
    const list = (await emu.client.GET("/developer/v1/extensions/{id}/versions", byId(id))).data?.versions ?? [];
    expect(list.length).toBe(100);
    expect(list.map((v) => v.id)).not.toContain(second);
    expect(list.map((v) => v.id)).toContain(first);
    const all =
      (
        await emu.client.GET("/developer/v1/extensions/{id}/versions", {
          params: { path: { id }, query: { include: "archived" } },
        })
      ).data?.versions ?? [];
    expect(all.length).toBe(101);
    expect(all.find((v) => v.id === second)?.status).toBe("archived");
    expect(existsSync(emu.runtime.blobs.pathOf(emu.runtime.services.versions.findById(second).bundleBlobId))).toBe(
      true,
    );
  }, 60_000);
});
