/**
 * The extensions resource over a real socket and a real SQLite file: every endpoint, its exact shapes,
 * PATCH semantics, slugs, the per-account cap, listed-extension protection, cascade delete, isolation
 * between accounts and strict validation.
 */
import type { Database } from "bun:sqlite";
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, writeFileSync } from "node:fs";
import { eq } from "drizzle-orm";
import type { ExtensionCreate, ExtensionUpdate } from "../../client";
import { newId } from "../../server/base/ids";
import { extensionOverrides, extensions, installCounters, secrets, versions } from "../../server/db/schema";
import {
  baseFixture,
  DEMO_KEY,
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

const byId = (id: string) => ({ params: { path: { id } } });
const post = (body: ExtensionCreate, key = DEMO_KEY, on: TestEmulator = emu) =>
  on.clientFor(key).POST("/developer/v1/extensions", { body });
const list = (on: TestEmulator = emu) => on.client.GET("/developer/v1/extensions");
const get = (id: string, key = DEMO_KEY) => emu.clientFor(key).GET("/developer/v1/extensions/{id}", byId(id));
const patch = (id: string, body: ExtensionUpdate, key = DEMO_KEY) =>
  emu.clientFor(key).PATCH("/developer/v1/extensions/{id}", { ...byId(id), body });
const remove = (id: string, key = DEMO_KEY, on: TestEmulator = emu) =>
  on.clientFor(key).DELETE("/developer/v1/extensions/{id}", byId(id));
/** Raw, as DEMO_KEY: bodies the document refuses (unknown fields, wrong types, values outside an enum). */
const developer = (method: string, path: string, json: unknown) =>
  emu.rawRequest(method, `/developer/v1${path}`, { key: DEMO_KEY, json });

async function create(body: ExtensionCreate, key?: string) {
  const res = await post(body, key);
  if (res.response.status !== 201 || !res.data)
    throw new Error(`create failed: ${res.response.status} ${JSON.stringify(res.error)}`);
  return res.data.extension;
}

describe("POST /extensions", () => {
  test("201 {extension:{id,slug,name,status:draft,createdAt}} and nothing else", async () => {
    const res = await post({ name: "  Sound Board  ", short_description: "Plays sounds" });
    expect(res.response.status).toBe(201);
    expect(Object.keys(res.data ?? {})).toEqual(["extension"]);
    const ext = res.data?.extension ?? { id: "", name: "", slug: "", status: "", createdAt: "" };
    expect(Object.keys(ext).sort()).toEqual(["createdAt", "id", "name", "slug", "status"]);
    expect(ext.id).toMatch(/^ext_[0-9a-z]{26}$/);
    expect(ext.name).toBe("Sound Board");
    expect(ext.slug).toBe("sound-board");
    expect(ext.status).toBe("draft");
    expect(ext.createdAt).toMatch(ISO_MS);
  });

  test("defaults: private, draft, free pricing, empty descriptions, counters at zero", async () => {
    const { id } = await create({ name: "Defaults" });
    const res = await get(id);
    expect(res.data).toMatchObject({
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
    expect(res.data?.updatedAt).toBe(res.data?.createdAt ?? "");
  });

  test("slugs fold accents and stay unique across accounts with -2, -3", async () => {
    const a = await create({ name: "Crème Brûlée" });
    const b = await create({ name: "creme brulee!" }, OTHER_KEY);
    const c = await create({ name: "CRÈME — BRÛLÉE" });
    expect([a.slug, b.slug, c.slug]).toEqual(["creme-brulee", "creme-brulee-2", "creme-brulee-3"]);
  });

  test("a rename keeps the slug", async () => {
    const { id, slug } = await create({ name: "Original Name" });
    const res = await patch(id, { name: "Brand New Name" });
    expect(res.response.status).toBe(200);
    expect(res.data?.slug).toBe(slug);
    expect(res.data?.name).toBe("Brand New Name");
  });

  test("unknown field → 422 validation_error naming it", async () => {
    const res = await developer("POST", "/extensions", { name: "X", colour: "red" });
    const error = expectEnvelope(res, 422, "validation_error");
    expect(error.details?.some((d) => d.field === "colour")).toBe(true);
    expect(error.message).toContain("colour");
  });

  test("status is not a create field → 422", async () => {
    expectEnvelope(await developer("POST", "/extensions", { name: "X", status: "approved" }), 422, "validation_error");
  });

  test("pricing type other than free → 422", async () => {
    const res = await developer("POST", "/extensions", { name: "Paid", pricing: { type: "paid" } });
    const error = expectEnvelope(res, 422, "validation_error");
    expect(error.details?.some((d) => String(d.field).startsWith("pricing"))).toBe(true);
  });

  test("missing or blank name → 422 naming name", async () => {
    const answers = [
      await developer("POST", "/extensions", {}),
      await post({ name: "" }),
      await post({ name: "   " }),
      await developer("POST", "/extensions", { name: 42 }),
    ];
    for (const res of answers) {
      const error = expectEnvelope(res, 422, "validation_error");
      expect(error.details?.some((d) => d.field === "name")).toBe(true);
    }
  });

  test("details: one per field, enums name their allowed values", async () => {
    const missing = expectEnvelope(await developer("POST", "/extensions", {}), 422, "validation_error");
    expect(missing.details).toEqual([{ field: "name", message: "name: `name` is required" }]);
    const { id } = await create({ name: "Enum Message" });
    const bad = expectEnvelope(
      await developer("PATCH", `/extensions/${id}`, { visibility: "secret" }),
      422,
      "validation_error",
    );
    expect(bad.details).toEqual([
      { field: "visibility", message: "visibility: must be one of private, unlisted, public" },
    ]);
    expect(bad.message).not.toContain("secret");
  });

  test("fields over their maximum → 422", async () => {
    const cases: { field: string; json: ExtensionCreate }[] = [
      { field: "name", json: { name: "n".repeat(81) } },
      { field: "short_description", json: { name: "ok", short_description: "s".repeat(141) } },
      { field: "description", json: { name: "ok", description: "d".repeat(20_001) } },
    ];
    for (const { field, json } of cases) {
      const error = expectEnvelope(await post(json), 422, "validation_error");
      expect(error.details?.some((d) => d.field === field)).toBe(true);
    }
    // The name's 80 count after trimming: surrounding spaces do not count.
    const padded = await post({ name: `  ${"p".repeat(80)}  ` });
    expect(padded.response.status).toBe(201);
    expect(padded.data?.extension.name).toBe("p".repeat(80));
    // Lengths are characters (code points), as the document's maxLength: 80 emoji fit, 81 do not.
    expect((await post({ name: "🎵".repeat(80) })).response.status).toBe(201);
    expectEnvelope(await post({ name: "🎵".repeat(81) }), 422, "validation_error");
    // The maxima themselves are accepted.
    const ok = await post({
      name: "n".repeat(80),
      short_description: "s".repeat(140),
      description: "d".repeat(20_000),
    });
    expect(ok.response.status).toBe(201);
  });

  test("a body that is not an object → 422", async () => {
    expectEnvelope(await developer("POST", "/extensions", ["name"]), 422, "validation_error");
  });

  test("a read-only key → 403 forbidden, nothing created", async () => {
    const before = (await list()).data?.extensions.length;
    const error = expectEnvelope(await post({ name: "Nope" }, READ_KEY), 403, "forbidden");
    expect(error.message).toContain("extensions:write");
    expect((await list()).data?.extensions.length).toBe(before ?? Number.NaN);
  });
});

describe("GET /extensions", () => {
  test("200 {extensions:[…]} with exactly the list keys, newest first, own account only", async () => {
    const first = await create({ name: "List One" });
    emu.clock.advance(1);
    const second = await create({ name: "List Two" });
    const other = await create({ name: "Not Mine" }, OTHER_KEY);
    const res = await list();
    expect(res.response.status).toBe(200);
    expect(Object.keys(res.data ?? {})).toEqual(["extensions"]);
    const listed = res.data?.extensions ?? [];
    for (const item of listed) expect(Object.keys(item).sort()).toEqual(LIST_KEYS);
    const ids = listed.map((e) => e.id);
    expect(ids).not.toContain(other.id);
    expect(ids.indexOf(second.id)).toBeLessThan(ids.indexOf(first.id));
    const item = listed.find((e) => e.id === first.id);
    expect(item).toMatchObject({
      id: first.id,
      slug: first.slug,
      name: "List One",
      visibility: "private",
      status: "draft",
      installCount: 0,
      currentVersionId: null,
    });
    expect(item?.createdAt).toBe(first.createdAt);
  });

  test("the list is never stale: every write shows at once", async () => {
    const ext = await create({ name: "Fresh List" });
    const named = async () => (await list()).data?.extensions.find((e) => e.id === ext.id);
    expect((await named())?.name).toBe("Fresh List");
    // The same list twice (served from the cache), then a write through the API…
    expect((await named())?.name).toBe("Fresh List");
    await patch(ext.id, { visibility: "unlisted" });
    expect((await named())?.visibility).toBe("unlisted");
    // …and one that bypasses the extension service (as review and installs do), through the write helper every
    // service uses. Another process writes through the server (test/binary/seed-beside-server.slow.test.ts).
    const { db } = emu.runtime;
    db.write(() => db.$client.prepare("UPDATE extensions SET status = 'approved' WHERE id = ?").run(ext.id));
    expect((await named())?.status).toBe("approved");
  });

  // The other cached reads (server/db/read-cache.ts) hold to the same rule: each row writes what its read shows.
  const EPOCH = "2026-01-01T00:00:00.000Z";
  const cachedReads = [
    {
      route: "GET /extensions/:id",
      read: async (id: string) => (await get(id)).data?.description,
      write: (s: Database, id: string, n: number) =>
        s.prepare("UPDATE extensions SET description = ? WHERE id = ?").run(`changed ${n}`, id),
    },
    {
      route: "GET /extensions/:id/installs",
      read: async (id: string) =>
        (await emu.client.GET("/developer/v1/extensions/{id}/installs", byId(id))).data?.total,
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
      read: async (id: string) =>
        (await emu.client.GET("/developer/v1/extensions/{id}/limits", byId(id))).data?.limits.account
          .max_secrets_per_extension?.value,
      write: (s: Database, id: string, n: number) =>
        s
          .prepare(
            "INSERT INTO extension_overrides (extension_id, limit_key, value, updated_at) VALUES (?, 'max_secrets_per_extension', ?, ?) ON CONFLICT DO UPDATE SET value = excluded.value",
          )
          .run(id, 40 + n, EPOCH),
    },
  ];
  for (const { route, read, write } of cachedReads) {
    test(`${route} is never stale: a write through the server's write helper shows at once`, async () => {
      const { db } = emu.runtime;
      const ext = await create({ name: `Fresh ${route.length}` });
      const seen = () => read(ext.id);
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
    const plain = await list();
    // Parameters the document does not have: raw.
    const queried = await emu.rawRequest("GET", "/developer/v1/extensions?limit=1&page=2&status=approved", {
      key: DEMO_KEY,
    });
    expect(queried.status).toBe(200);
    expect(queried.body).toEqual(plain.data);
  });
});

describe("GET /extensions/:id", () => {
  test("200 the full object with exactly the full keys", async () => {
    const { id } = await create({ name: "Full", short_description: "short", description: "# Long" });
    const res = await get(id);
    expect(res.response.status).toBe(200);
    expect(Object.keys(res.data ?? {}).sort()).toEqual(FULL_KEYS);
    expect(res.data).toMatchObject({
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
    expect((await get(id)).data?.installCount).toBe(2);
    const listed = (await list()).data?.extensions.find((e) => e.id === id);
    expect(listed?.installCount).toBe(2);
  });

  test("unknown id → 404 extension_not_found", async () => {
    expectEnvelope(await get("ext_does_not_exist"), 404, "extension_not_found");
  });
});

describe("PATCH /extensions/:id", () => {
  test("changes only the fields sent and returns the full object", async () => {
    const { id } = await create({ name: "Patch Me", short_description: "keep", description: "keep too" });
    const res = await patch(id, { description: "changed" });
    expect(res.response.status).toBe(200);
    expect(Object.keys(res.data ?? {}).sort()).toEqual(FULL_KEYS);
    expect(res.data).toMatchObject({
      name: "Patch Me",
      short_description: "keep",
      description: "changed",
      visibility: "private",
    });
    const again = await patch(id, { visibility: "unlisted", short_description: "" });
    expect(again.data).toMatchObject({
      name: "Patch Me",
      short_description: "",
      description: "changed",
      visibility: "unlisted",
    });
    expect((await get(id)).data).toEqual(again.data);
  });

  test("fields not sent keep their values (no schema default fills them in)", async () => {
    const { id } = await create({ name: "Sticky", short_description: "s", description: "d" });
    await patch(id, { visibility: "unlisted" });
    const res = await patch(id, { name: "Sticky 2" });
    expect(res.data).toMatchObject({
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
    const same = await patch(id, { name: "Clocked", pricing: { type: "free" } });
    expect(same.data?.updatedAt).toBe(createdAt);
    const empty = await patch(id, {});
    expect(empty.response.status).toBe(200);
    expect(empty.data?.updatedAt).toBe(createdAt);
    emu.clock.advance(5);
    const changed = await patch(id, { name: "Clocked Again" });
    expect(changed.data?.updatedAt).not.toBe(createdAt);
    expect(Date.parse(changed.data?.updatedAt ?? "") - Date.parse(createdAt)).toBeGreaterThanOrEqual(10_000);
    expect(changed.data?.createdAt).toBe(createdAt);
  });

  test("strict: unknown field, status, bad visibility, blank name, other pricing → 422 and nothing changes", async () => {
    const { id } = await create({ name: "Strict" });
    const before = (await get(id)).data;
    const refused = [
      await developer("PATCH", `/extensions/${id}`, { colour: "red" }),
      await developer("PATCH", `/extensions/${id}`, { status: "approved" }),
      await developer("PATCH", `/extensions/${id}`, { visibility: "secret" }),
      await patch(id, { name: "  " }),
      await patch(id, { name: "n".repeat(81) }),
      await developer("PATCH", `/extensions/${id}`, { pricing: { type: "paid" } }),
      await developer("PATCH", `/extensions/${id}`, { name: "ok", bogus: 1 }),
    ];
    for (const res of refused) expectEnvelope(res, 422, "validation_error");
    expect((await get(id)).data).toEqual(before);
  });

  test("another account's extension → 404 extension_not_found, unchanged", async () => {
    const { id } = await create({ name: "Private Thing" });
    expectEnvelope(await patch(id, { name: "Hijacked" }, OTHER_KEY), 404, "extension_not_found");
    expect((await get(id)).data?.name).toBe("Private Thing");
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

    const res = await remove(id);
    expect(res.response.status).toBe(204);
    expect(await res.response.text()).toBe("");

    expectEnvelope(await get(id), 404, "extension_not_found");
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
    expect((await remove(id)).response.status).toBe(204);
    expectEnvelope(await remove(id), 404, "extension_not_found");
  });

  test("a publicly listed extension → 409 extension_listed, nothing removed: not the row, not a child, not a file", async () => {
    const id = "ext_listed";
    const { db, blobs } = emu.runtime;
    const blobId = addChildren(id);
    const before = (await get(id)).data;
    expect(before).toMatchObject({ status: "approved", visibility: "public" });
    expectEnvelope(await remove(id), 409, "extension_listed");
    expect((await get(id)).data).toEqual(before);
    expect(db.select().from(versions).where(eq(versions.extensionId, id)).all()).toHaveLength(1);
    expect(db.select().from(secrets).where(eq(secrets.extensionId, id)).all()).toHaveLength(1);
    expect(db.select().from(installCounters).where(eq(installCounters.extensionId, id)).all()).toHaveLength(1);
    expect(db.select().from(extensionOverrides).where(eq(extensionOverrides.extensionId, id)).all()).toHaveLength(1);
    expect(existsSync(blobs.pathOf(blobId))).toBe(true);
  });

  test("once listed, always listed: approved + PATCH public, then back to private → still 409", async () => {
    const id = "ext_approved_private";
    expect((await patch(id, { visibility: "public" })).data?.visibility).toBe("public");
    expect((await patch(id, { visibility: "private" })).data?.visibility).toBe("private");
    expectEnvelope(await remove(id), 409, "extension_listed");
    expect((await get(id)).response.status).toBe(200);
  });

  test("public but never approved is not listed → 204", async () => {
    const { id } = await create({ name: "Public Draft" });
    await patch(id, { visibility: "public" });
    expect((await remove(id)).response.status).toBe(204);
  });

  test("another account's extension → 404 extension_not_found, still there", async () => {
    const { id } = await create({ name: "Mine Alone" });
    expectEnvelope(await remove(id, OTHER_KEY), 404, "extension_not_found");
    expect((await get(id)).response.status).toBe(200);
  });
});

describe("cross-account access", () => {
  test("GET of another account's extension → 404 extension_not_found, same as a missing one", async () => {
    const { id } = await create({ name: "Hidden" });
    const theirs = expectEnvelope(await get(id, OTHER_KEY), 404, "extension_not_found");
    const missing = expectEnvelope(await get("ext_nope", OTHER_KEY), 404, "extension_not_found");
    expect(theirs.message.replace(id, "ID")).toBe(missing.message.replace("ext_nope", "ID"));
  });
});

describe("POST /extensions (per-account cap)", () => {
  test("the 26th extension → 422 limit_exceeded with {limit,max,current}; nothing created", async () => {
    const fresh = await startTestEmulator();
    try {
      for (let i = 1; i <= 25; i++) {
        const res = await post({ name: `Ext ${i}` }, DEMO_KEY, fresh);
        expect(res.response.status).toBe(201);
      }
      const error = expectEnvelope(await post({ name: "Ext 26" }, DEMO_KEY, fresh), 422, "limit_exceeded");
      expect(error.details?.[0]).toMatchObject({ limit: "max_extensions_per_account", max: 25, current: 25 });
      expect((await list(fresh)).data?.extensions).toHaveLength(25);
      // Another account is not affected by this one's count.
      expect((await post({ name: "Elsewhere" }, OTHER_KEY, fresh)).response.status).toBe(201);
      // Deleting one frees a place.
      const first = (await list(fresh)).data?.extensions[0]?.id ?? "";
      expect((await remove(first, DEMO_KEY, fresh)).response.status).toBe(204);
      expect((await post({ name: "Ext 26" }, DEMO_KEY, fresh)).response.status).toBe(201);
    } finally {
      await stopTestEmulator(fresh);
    }
  });
});
