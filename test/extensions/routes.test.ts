/**
 * The extensions resource over a real socket and a real SQLite file: every endpoint, its exact shapes,
 * PATCH semantics, slugs, the per-account cap, listed-extension protection, cascade delete, isolation
 * between accounts and strict validation.
 */
import type { Database } from "bun:sqlite";
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, writeFileSync } from "node:fs";
import { eq } from "drizzle-orm";
import { extensionOverrides, extensions, installCounters, secrets, versions } from "../../src/db/schema";
import { newId } from "../../src/ids";
import {
  baseFixture,
  expectEnvelope,
  OTHER_KEY,
  READ_KEY,
  startTestEmulator,
  stopTestEmulator,
  type TestEmulator,
} from "../helpers/emulator";

const LIST_KEYS = [
  "createdAt",
  "currentVersionId",
  "id",
  "installCount",
  "name",
  "slug",
  "status",
  "updatedAt",
  "visibility",
];
const FULL_KEYS = [...LIST_KEYS, "description", "pricing", "ratingCount", "short_description"].sort();
const ISO_MS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

let emu: TestEmulator;

beforeAll(async () => {
  const fixture = baseFixture();
  fixture.accounts[0]!.extensions = [
    { id: "ext_listed", name: "Listed Already", status: "approved", visibility: "public" },
    { id: "ext_approved_private", name: "Approved Private", status: "approved", visibility: "private" },
  ];
  emu = await startTestEmulator({ fixture });
});
afterAll(() => stopTestEmulator(emu));

async function create(body: Record<string, unknown>, key?: string) {
  const res = await emu.api("POST", "/extensions", { json: body, key });
  if (res.status !== 201) throw new Error(`create failed: ${res.status} ${res.text}`);
  return res.body.extension as { id: string; slug: string; name: string; status: string; createdAt: string };
}

describe("POST /extensions", () => {
  test("201 {extension:{id,slug,name,status:draft,createdAt}} and nothing else", async () => {
    const res = await emu.api("POST", "/extensions", {
      json: { name: "  Sound Board  ", short_description: "Plays sounds" },
    });
    expect(res.status).toBe(201);
    expect(Object.keys(res.body)).toEqual(["extension"]);
    const ext = res.body.extension;
    expect(Object.keys(ext).sort()).toEqual(["createdAt", "id", "name", "slug", "status"]);
    expect(ext.id).toMatch(/^ext_[0-9a-z]{26}$/);
    expect(ext.name).toBe("Sound Board");
    expect(ext.slug).toBe("sound-board");
    expect(ext.status).toBe("draft");
    expect(ext.createdAt).toMatch(ISO_MS);
  });

  test("defaults: private, draft, free pricing, empty descriptions, counters at zero", async () => {
    const { id } = await create({ name: "Defaults" });
    const res = await emu.api("GET", `/extensions/${id}`);
    expect(res.body).toMatchObject({
      name: "Defaults",
      short_description: "",
      description: "",
      pricing: { type: "free" },
      visibility: "private",
      status: "draft",
      installCount: 0,
      currentVersionId: null,
      ratingCount: 0,
    });
    expect(res.body.updatedAt).toBe(res.body.createdAt);
  });

  test("slugs fold accents and stay unique across accounts with -2, -3", async () => {
    const a = await create({ name: "Crème Brûlée" });
    const b = await create({ name: "creme brulee!" }, OTHER_KEY);
    const c = await create({ name: "CRÈME — BRÛLÉE" });
    expect([a.slug, b.slug, c.slug]).toEqual(["creme-brulee", "creme-brulee-2", "creme-brulee-3"]);
  });

  test("a rename keeps the slug", async () => {
    const { id, slug } = await create({ name: "Original Name" });
    const res = await emu.api("PATCH", `/extensions/${id}`, { json: { name: "Brand New Name" } });
    expect(res.status).toBe(200);
    expect(res.body.slug).toBe(slug);
    expect(res.body.name).toBe("Brand New Name");
  });

  test("unknown field → 422 validation_error naming it", async () => {
    const res = await emu.api("POST", "/extensions", { json: { name: "X", colour: "red" } });
    const error = expectEnvelope(res, 422, "validation_error");
    expect(error.details?.some((d) => d.field === "colour")).toBe(true);
    expect(error.message).toContain("colour");
  });

  test("status is not a create field → 422", async () => {
    expectEnvelope(
      await emu.api("POST", "/extensions", { json: { name: "X", status: "approved" } }),
      422,
      "validation_error",
    );
  });

  test("pricing type other than free → 422", async () => {
    const res = await emu.api("POST", "/extensions", { json: { name: "Paid", pricing: { type: "paid" } } });
    const error = expectEnvelope(res, 422, "validation_error");
    expect(error.details?.some((d) => String(d.field).startsWith("pricing"))).toBe(true);
  });

  test("missing or blank name → 422 naming name", async () => {
    for (const json of [{}, { name: "" }, { name: "   " }, { name: 42 }]) {
      const error = expectEnvelope(await emu.api("POST", "/extensions", { json }), 422, "validation_error");
      expect(error.details?.some((d) => d.field === "name")).toBe(true);
    }
  });

  test("details: one per field, enums name their allowed values", async () => {
    const missing = expectEnvelope(await emu.api("POST", "/extensions", { json: {} }), 422, "validation_error");
    expect(missing.details).toEqual([{ field: "name", message: "name: `name` is required" }]);
    const { id } = await create({ name: "Enum Message" });
    const bad = expectEnvelope(
      await emu.api("PATCH", `/extensions/${id}`, { json: { visibility: "secret" } }),
      422,
      "validation_error",
    );
    expect(bad.details).toEqual([
      { field: "visibility", message: "visibility: must be one of private, unlisted, public" },
    ]);
    expect(bad.message).not.toContain("secret");
  });

  test("fields over their maximum → 422", async () => {
    const cases = [
      { field: "name", json: { name: "n".repeat(81) } },
      { field: "short_description", json: { name: "ok", short_description: "s".repeat(141) } },
      { field: "description", json: { name: "ok", description: "d".repeat(20_001) } },
    ];
    for (const { field, json } of cases) {
      const error = expectEnvelope(await emu.api("POST", "/extensions", { json }), 422, "validation_error");
      expect(error.details?.some((d) => d.field === field)).toBe(true);
    }
    // The name's 80 count after trimming: surrounding spaces do not count.
    const padded = await emu.api("POST", "/extensions", { json: { name: `  ${"p".repeat(80)}  ` } });
    expect(padded.status).toBe(201);
    expect(padded.body.extension.name).toBe("p".repeat(80));
    // Lengths are characters (code points), as the document's maxLength: 80 emoji fit, 81 do not.
    expect((await emu.api("POST", "/extensions", { json: { name: "🎵".repeat(80) } })).status).toBe(201);
    expectEnvelope(await emu.api("POST", "/extensions", { json: { name: "🎵".repeat(81) } }), 422, "validation_error");
    // The maxima themselves are accepted.
    const ok = await emu.api("POST", "/extensions", {
      json: { name: "n".repeat(80), short_description: "s".repeat(140), description: "d".repeat(20_000) },
    });
    expect(ok.status).toBe(201);
  });

  test("a body that is not an object → 422", async () => {
    expectEnvelope(await emu.api("POST", "/extensions", { json: ["name"] }), 422, "validation_error");
  });

  test("a read-only key → 403 forbidden, nothing created", async () => {
    const before = (await emu.api("GET", "/extensions")).body.extensions.length;
    const error = expectEnvelope(
      await emu.api("POST", "/extensions", { json: { name: "Nope" }, key: READ_KEY }),
      403,
      "forbidden",
    );
    expect(error.message).toContain("extensions:write");
    expect((await emu.api("GET", "/extensions")).body.extensions.length).toBe(before);
  });
});

describe("GET /extensions", () => {
  test("200 {extensions:[…]} with exactly the list keys, newest first, own account only", async () => {
    const first = await create({ name: "List One" });
    emu.clock.advance(1);
    const second = await create({ name: "List Two" });
    const other = await create({ name: "Not Mine" }, OTHER_KEY);
    const res = await emu.api("GET", "/extensions");
    expect(res.status).toBe(200);
    expect(Object.keys(res.body)).toEqual(["extensions"]);
    for (const item of res.body.extensions) expect(Object.keys(item).sort()).toEqual(LIST_KEYS);
    const ids = res.body.extensions.map((e: { id: string }) => e.id);
    expect(ids).not.toContain(other.id);
    expect(ids.indexOf(second.id)).toBeLessThan(ids.indexOf(first.id));
    const item = res.body.extensions.find((e: { id: string }) => e.id === first.id);
    expect(item).toMatchObject({
      id: first.id,
      slug: first.slug,
      name: "List One",
      visibility: "private",
      status: "draft",
      installCount: 0,
      currentVersionId: null,
    });
    expect(item.createdAt).toBe(first.createdAt);
  });

  test("the list is never stale: every write shows at once", async () => {
    const ext = await create({ name: "Fresh List" });
    const named = async () =>
      (await emu.api("GET", "/extensions")).body.extensions.find((e: { id: string }) => e.id === ext.id);
    expect((await named()).name).toBe("Fresh List");
    // The same list twice (served from the cache), then a write through the API…
    expect((await named()).name).toBe("Fresh List");
    await emu.api("PATCH", `/extensions/${ext.id}`, { json: { visibility: "unlisted" } });
    expect((await named()).visibility).toBe("unlisted");
    // …and one that bypasses the extension service (as review and installs do), through the write helper every
    // service uses. Another process writes through the server (test/binary/seed-beside-server.slow.test.ts).
    const { db } = emu.runtime;
    db.write(() => db.$client.prepare("UPDATE extensions SET status = 'approved' WHERE id = ?").run(ext.id));
    expect((await named()).status).toBe("approved");
  });

  // The other cached reads (src/db/read-cache.ts) hold to the same rule: each row writes what its read shows.
  const EPOCH = "2026-01-01T00:00:00.000Z";
  const cachedReads = [
    {
      route: "GET /extensions/:id",
      path: (id: string) => `/extensions/${id}`,
      read: (b: any) => b.description,
      write: (s: Database, id: string, n: number) =>
        s.prepare("UPDATE extensions SET description = ? WHERE id = ?").run(`changed ${n}`, id),
    },
    {
      route: "GET /extensions/:id/installs",
      path: (id: string) => `/extensions/${id}/installs`,
      read: (b: any) => b.total,
      write: (s: Database, id: string, n: number) => {
        s.prepare(
          "INSERT INTO versions (id, extension_id, seq, version, status, bundle_blob_id, bundle_size_bytes, bundle_sha256, submitted_at) VALUES (?, ?, ?, ?, 'approved', 'b', 1, 's', ?)",
        ).run(`ver_${id}_${n}`, id, n, `1.0.${n}`, EPOCH);
        s.prepare(
          "INSERT INTO install_counters (extension_id, version_id, installed, active, first_installed_at) VALUES (?, ?, 1, 1, ?)",
        ).run(id, `ver_${id}_${n}`, EPOCH);
      },
    },
    {
      route: "GET /extensions/:id/limits",
      path: (id: string) => `/extensions/${id}/limits`,
      read: (b: any) => b.limits.account.max_secrets_per_extension.value,
      write: (s: Database, id: string, n: number) =>
        s
          .prepare(
            "INSERT INTO extension_overrides (extension_id, limit_key, value, updated_at) VALUES (?, 'max_secrets_per_extension', ?, ?) ON CONFLICT DO UPDATE SET value = excluded.value",
          )
          .run(id, 40 + n, EPOCH),
    },
  ];
  for (const { route, path, read, write } of cachedReads) {
    test(`${route} is never stale: a write through the server's write helper shows at once`, async () => {
      const { db } = emu.runtime;
      const ext = await create({ name: `Fresh ${route.length}` });
      const seen = async () => read((await emu.api("GET", path(ext.id))).body);
      const first = await seen();
      expect(await seen()).toEqual(first);
      db.write(() => write(db.$client, ext.id, 1));
      const afterOne = await seen();
      expect(afterOne).not.toEqual(first);
      db.write(() => write(db.$client, ext.id, 2));
      expect(await seen()).not.toEqual(afterOne);
      // The account's extension cap is shared with the other tests of this file (the rows above have no bundle file).
      db.write(() => db.$client.prepare("DELETE FROM extensions WHERE id = ?").run(ext.id));
    });
  }

  test("unknown query parameters are ignored (no pagination or filtering)", async () => {
    const plain = await emu.api("GET", "/extensions");
    const queried = await emu.api("GET", "/extensions?limit=1&page=2&status=approved");
    expect(queried.status).toBe(200);
    expect(queried.body).toEqual(plain.body);
  });
});

describe("GET /extensions/:id", () => {
  test("200 the full object with exactly the full keys", async () => {
    const { id } = await create({ name: "Full", short_description: "short", description: "# Long" });
    const res = await emu.api("GET", `/extensions/${id}`);
    expect(res.status).toBe(200);
    expect(Object.keys(res.body).sort()).toEqual(FULL_KEYS);
    expect(res.body).toMatchObject({
      id,
      name: "Full",
      short_description: "short",
      description: "# Long",
      pricing: { type: "free" },
    });
  });

  test("installCount counts every install recorded, uninstalled ones included", async () => {
    const { id } = await create({ name: "Counted" });
    const now = emu.clock.iso();
    const versionId = newId("ver", emu.clock.nowMs());
    emu.runtime.db.write((tx) =>
      tx
        .insert(versions)
        .values({
          id: versionId,
          extensionId: id,
          seq: 1,
          version: "1.0.0",
          bundleBlobId: "blob_none",
          bundleSizeBytes: 1,
          bundleSha256: "x",
          submittedAt: now,
        })
        .run(),
    );
    emu.runtime.db.write((tx) =>
      tx
        .insert(installCounters)
        .values({ extensionId: id, versionId, installed: 2, active: 1, firstInstalledAt: now })
        .run(),
    );
    expect((await emu.api("GET", `/extensions/${id}`)).body.installCount).toBe(2);
    const listed = (await emu.api("GET", "/extensions")).body.extensions.find((e: { id: string }) => e.id === id);
    expect(listed.installCount).toBe(2);
  });

  test("unknown id → 404 extension_not_found", async () => {
    expectEnvelope(await emu.api("GET", "/extensions/ext_does_not_exist"), 404, "extension_not_found");
  });
});

describe("PATCH /extensions/:id", () => {
  test("changes only the fields sent and returns the full object", async () => {
    const { id } = await create({ name: "Patch Me", short_description: "keep", description: "keep too" });
    const res = await emu.api("PATCH", `/extensions/${id}`, { json: { description: "changed" } });
    expect(res.status).toBe(200);
    expect(Object.keys(res.body).sort()).toEqual(FULL_KEYS);
    expect(res.body).toMatchObject({
      name: "Patch Me",
      short_description: "keep",
      description: "changed",
      visibility: "private",
    });
    const again = await emu.api("PATCH", `/extensions/${id}`, {
      json: { visibility: "unlisted", short_description: "" },
    });
    expect(again.body).toMatchObject({
      name: "Patch Me",
      short_description: "",
      description: "changed",
      visibility: "unlisted",
    });
    expect((await emu.api("GET", `/extensions/${id}`)).body).toEqual(again.body);
  });

  test("fields not sent keep their values (no schema default fills them in)", async () => {
    const { id } = await create({ name: "Sticky", short_description: "s", description: "d" });
    await emu.api("PATCH", `/extensions/${id}`, { json: { visibility: "unlisted" } });
    const res = await emu.api("PATCH", `/extensions/${id}`, { json: { name: "Sticky 2" } });
    expect(res.body).toMatchObject({
      name: "Sticky 2",
      visibility: "unlisted",
      short_description: "s",
      description: "d",
      pricing: { type: "free" },
    });
  });

  test("updatedAt moves only when something really changed", async () => {
    const { id, createdAt } = await create({ name: "Clocked" });
    emu.clock.advance(5);
    const same = await emu.api("PATCH", `/extensions/${id}`, { json: { name: "Clocked", pricing: { type: "free" } } });
    expect(same.body.updatedAt).toBe(createdAt);
    const empty = await emu.api("PATCH", `/extensions/${id}`, { json: {} });
    expect(empty.status).toBe(200);
    expect(empty.body.updatedAt).toBe(createdAt);
    emu.clock.advance(5);
    const changed = await emu.api("PATCH", `/extensions/${id}`, { json: { name: "Clocked Again" } });
    expect(changed.body.updatedAt).not.toBe(createdAt);
    expect(Date.parse(changed.body.updatedAt) - Date.parse(createdAt)).toBeGreaterThanOrEqual(10_000);
    expect(changed.body.createdAt).toBe(createdAt);
  });

  test("strict: unknown field, status, bad visibility, blank name, other pricing → 422 and nothing changes", async () => {
    const { id } = await create({ name: "Strict" });
    const before = (await emu.api("GET", `/extensions/${id}`)).body;
    const bodies = [
      { colour: "red" },
      { status: "approved" },
      { visibility: "secret" },
      { name: "  " },
      { name: "n".repeat(81) },
      { pricing: { type: "paid" } },
      { name: "ok", bogus: 1 },
    ];
    for (const json of bodies)
      expectEnvelope(await emu.api("PATCH", `/extensions/${id}`, { json }), 422, "validation_error");
    expect((await emu.api("GET", `/extensions/${id}`)).body).toEqual(before);
  });

  test("another account's extension → 404 extension_not_found, unchanged", async () => {
    const { id } = await create({ name: "Private Thing" });
    expectEnvelope(
      await emu.api("PATCH", `/extensions/${id}`, { json: { name: "Hijacked" }, key: OTHER_KEY }),
      404,
      "extension_not_found",
    );
    expect((await emu.api("GET", `/extensions/${id}`)).body.name).toBe("Private Thing");
  });
});

describe("DELETE /extensions/:id", () => {
  /** Gives an extension one of every child: a version with its bundle file, a secret, an install, an override. */
  function addChildren(id: string): string {
    const { db, blobs, clock } = emu.runtime;
    const blobId = newId("blob", clock.nowMs());
    const temp = blobs.tempPath();
    writeFileSync(temp, "bundle bytes");
    blobs.commit(temp, blobId);
    const now = clock.iso();
    const versionId = newId("ver", clock.nowMs());
    // Through the write helper every service uses, so the read caches see these rows.
    db.write(() => {
      db.insert(versions)
        .values({
          id: versionId,
          extensionId: id,
          seq: 1,
          version: "1.0.0",
          bundleBlobId: blobId,
          bundleSizeBytes: 12,
          bundleSha256: "x",
          submittedAt: now,
        })
        .run();
      db.insert(secrets)
        .values({
          extensionId: id,
          name: "TOKEN",
          ciphertext: Buffer.from([1, 2, 3]),
          iv: Buffer.from([4, 5, 6]),
          createdAt: now,
          updatedAt: now,
        })
        .run();
      db.insert(installCounters)
        .values({ extensionId: id, versionId, installed: 1, active: 1, firstInstalledAt: now })
        .run();
      db.insert(extensionOverrides)
        .values({ extensionId: id, limitKey: "max_sounds_per_extension", value: 70, updatedAt: now })
        .run();
    });
    expect(existsSync(blobs.pathOf(blobId))).toBe(true);
    return blobId;
  }

  test("204 with an empty body; the extension and all its children are gone, no orphan file", async () => {
    const { id } = await create({ name: "Doomed" });
    const { db, blobs } = emu.runtime;
    const blobId = addChildren(id);

    const res = await emu.api("DELETE", `/extensions/${id}`);
    expect(res.status).toBe(204);
    expect(res.text).toBe("");

    expectEnvelope(await emu.api("GET", `/extensions/${id}`), 404, "extension_not_found");
    expect(db.select().from(extensions).where(eq(extensions.id, id)).all()).toHaveLength(0);
    expect(db.select().from(versions).where(eq(versions.extensionId, id)).all()).toHaveLength(0);
    expect(db.select().from(secrets).where(eq(secrets.extensionId, id)).all()).toHaveLength(0);
    expect(db.select().from(installCounters).where(eq(installCounters.extensionId, id)).all()).toHaveLength(0);
    expect(db.select().from(extensionOverrides).where(eq(extensionOverrides.extensionId, id)).all()).toHaveLength(0);
    expect(existsSync(blobs.pathOf(blobId))).toBe(false);
    expect(blobs.list()).not.toContain(blobId);
  });

  test("a second delete → 404 extension_not_found", async () => {
    const { id } = await create({ name: "Twice" });
    expect((await emu.api("DELETE", `/extensions/${id}`)).status).toBe(204);
    expectEnvelope(await emu.api("DELETE", `/extensions/${id}`), 404, "extension_not_found");
  });

  test("a publicly listed extension → 409 extension_listed, nothing removed: not the row, not a child, not a file", async () => {
    const id = "ext_listed";
    const { db, blobs } = emu.runtime;
    const blobId = addChildren(id);
    const before = (await emu.api("GET", `/extensions/${id}`)).body;
    expect(before).toMatchObject({ status: "approved", visibility: "public" });
    expectEnvelope(await emu.api("DELETE", `/extensions/${id}`), 409, "extension_listed");
    expect((await emu.api("GET", `/extensions/${id}`)).body).toEqual(before);
    expect(db.select().from(versions).where(eq(versions.extensionId, id)).all()).toHaveLength(1);
    expect(db.select().from(secrets).where(eq(secrets.extensionId, id)).all()).toHaveLength(1);
    expect(db.select().from(installCounters).where(eq(installCounters.extensionId, id)).all()).toHaveLength(1);
    expect(db.select().from(extensionOverrides).where(eq(extensionOverrides.extensionId, id)).all()).toHaveLength(1);
    expect(existsSync(blobs.pathOf(blobId))).toBe(true);
  });

  test("once listed, always listed: approved + PATCH public, then back to private → still 409", async () => {
    const id = "ext_approved_private";
    expect((await emu.api("PATCH", `/extensions/${id}`, { json: { visibility: "public" } })).body.visibility).toBe(
      "public",
    );
    expect((await emu.api("PATCH", `/extensions/${id}`, { json: { visibility: "private" } })).body.visibility).toBe(
      "private",
    );
    expectEnvelope(await emu.api("DELETE", `/extensions/${id}`), 409, "extension_listed");
    expect((await emu.api("GET", `/extensions/${id}`)).status).toBe(200);
  });

  test("public but never approved is not listed → 204", async () => {
    const { id } = await create({ name: "Public Draft" });
    await emu.api("PATCH", `/extensions/${id}`, { json: { visibility: "public" } });
    expect((await emu.api("DELETE", `/extensions/${id}`)).status).toBe(204);
  });

  test("another account's extension → 404 extension_not_found, still there", async () => {
    const { id } = await create({ name: "Mine Alone" });
    expectEnvelope(await emu.api("DELETE", `/extensions/${id}`, { key: OTHER_KEY }), 404, "extension_not_found");
    expect((await emu.api("GET", `/extensions/${id}`)).status).toBe(200);
  });
});

describe("cross-account access", () => {
  test("GET of another account's extension → 404 extension_not_found, same as a missing one", async () => {
    const { id } = await create({ name: "Hidden" });
    const theirs = expectEnvelope(
      await emu.api("GET", `/extensions/${id}`, { key: OTHER_KEY }),
      404,
      "extension_not_found",
    );
    const missing = expectEnvelope(
      await emu.api("GET", "/extensions/ext_nope", { key: OTHER_KEY }),
      404,
      "extension_not_found",
    );
    expect(theirs.message.replace(id, "ID")).toBe(missing.message.replace("ext_nope", "ID"));
  });
});

describe("POST /extensions (per-account cap)", () => {
  test("the 26th extension → 422 limit_exceeded with {limit,max,current}; nothing created", async () => {
    const fresh = await startTestEmulator();
    try {
      for (let i = 1; i <= 25; i++) {
        const res = await fresh.api("POST", "/extensions", { json: { name: `Ext ${i}` } });
        expect(res.status).toBe(201);
      }
      const error = expectEnvelope(
        await fresh.api("POST", "/extensions", { json: { name: "Ext 26" } }),
        422,
        "limit_exceeded",
      );
      expect(error.details?.[0]).toMatchObject({ limit: "max_extensions_per_account", max: 25, current: 25 });
      expect((await fresh.api("GET", "/extensions")).body.extensions).toHaveLength(25);
      // Another account is not affected by this one's count.
      expect((await fresh.api("POST", "/extensions", { json: { name: "Elsewhere" }, key: OTHER_KEY })).status).toBe(
        201,
      );
      // Deleting one frees a place.
      const first = (await fresh.api("GET", "/extensions")).body.extensions[0].id;
      expect((await fresh.api("DELETE", `/extensions/${first}`)).status).toBe(204);
      expect((await fresh.api("POST", "/extensions", { json: { name: "Ext 26" } })).status).toBe(201);
    } finally {
      await stopTestEmulator(fresh);
    }
  });
});
