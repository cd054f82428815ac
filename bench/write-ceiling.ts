/**
 * The fair ceiling for the write rows: a bare Bun.serve over bun:sqlite doing the same writes as the emulator
 * (same journal mode, synchronous setting and foreign keys; a prepared statement in a transaction; the row read
 * back and answered as JSON; the secret encrypted with AES-256-GCM), with no framework, auth, validation
 * schema or request log. `bun bench/write-ceiling.ts <port> <dir>`; routes (the query tells rows apart):
 * POST /developer/v1/extensions, PATCH /developer/v1/extensions/:id, PUT /developer/v1/extensions/:id/secrets/:name.
 */
import { Database } from "bun:sqlite";
import { createCipheriv, randomBytes } from "node:crypto";
import { join } from "node:path";

const [port, dir] = process.argv.slice(2);

function open(file: string): Database {
  const db = new Database(file, { create: true, strict: true });
  db.exec(
    "PRAGMA journal_mode = WAL; PRAGMA busy_timeout = 5000; PRAGMA foreign_keys = ON; PRAGMA synchronous = NORMAL;",
  );
  db.exec(`CREATE TABLE accounts (id TEXT PRIMARY KEY, name TEXT NOT NULL);
    CREATE TABLE extensions (id TEXT PRIMARY KEY, account_id TEXT NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
      slug TEXT NOT NULL, name TEXT NOT NULL, short_description TEXT NOT NULL DEFAULT '', description TEXT NOT NULL DEFAULT '',
      pricing TEXT NOT NULL, visibility TEXT NOT NULL DEFAULT 'private', status TEXT NOT NULL DEFAULT 'draft',
      current_version_id TEXT, rating_count INTEGER NOT NULL DEFAULT 0, listed_at TEXT,
      created_at TEXT NOT NULL, updated_at TEXT NOT NULL);
    CREATE UNIQUE INDEX extensions_slug_idx ON extensions(slug);
    CREATE INDEX extensions_account_idx ON extensions(account_id, created_at);
    CREATE TABLE secrets (extension_id TEXT NOT NULL REFERENCES extensions(id) ON DELETE CASCADE, name TEXT NOT NULL,
      ciphertext BLOB NOT NULL, iv BLOB NOT NULL, created_at TEXT NOT NULL, updated_at TEXT NOT NULL,
      PRIMARY KEY (extension_id, name));`);
  const now = new Date().toISOString();
  db.run("INSERT INTO accounts VALUES ('acc_bench', 'Bench')");
  for (const id of ["ext_bench_02", "ext_bench_03"])
    db.run(
      "INSERT INTO extensions (id, account_id, slug, name, pricing, created_at, updated_at) VALUES (?, 'acc_bench', ?, ?, '{\"type\":\"free\"}', ?, ?)",
      [id, id, id, now, now],
    );
  return db;
}

if (import.meta.main) {
  const db = open(join(dir!, "ceiling.sqlite"));
  const key = randomBytes(32);
  const insert = db.prepare(
    "INSERT INTO extensions (id, account_id, slug, name, short_description, pricing, created_at, updated_at) VALUES (?, 'acc_bench', ?, ?, ?, '{\"type\":\"free\"}', ?, ?)",
  );
  const update = db.prepare("UPDATE extensions SET description = ?, updated_at = ? WHERE id = ?");
  const select = db.prepare("SELECT * FROM extensions WHERE id = ?");
  const upsert = db.prepare(
    "INSERT INTO secrets VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (extension_id, name) DO UPDATE SET ciphertext = excluded.ciphertext, iv = excluded.iv, updated_at = excluded.updated_at",
  );
  const create = db.transaction((body: { name: string; short_description?: string }) => {
    const id = `ext_${randomBytes(13).toString("hex")}`;
    const now = new Date().toISOString();
    insert.run(
      id,
      `${body.name.toLowerCase().replaceAll(/[^a-z0-9]+/g, "-")}-${id.slice(4, 12)}`,
      body.name,
      body.short_description ?? "",
      now,
      now,
    );
    return select.get(id);
  });
  const patch = db.transaction((id: string, description: string) => {
    update.run(description, new Date().toISOString(), id);
    return select.get(id);
  });
  const putSecret = db.transaction((id: string, name: string, value: string) => {
    const iv = randomBytes(12);
    const cipher = createCipheriv("aes-256-gcm", key, iv);
    const ciphertext = Buffer.concat([cipher.update(value, "utf8"), cipher.final(), cipher.getAuthTag()]);
    const now = new Date().toISOString();
    upsert.run(id, name, ciphertext, iv, now, now);
  });
  const json = (status: number, value: unknown) =>
    new Response(JSON.stringify(value), { status, headers: { "content-type": "application/json;charset=utf-8" } });

  Bun.serve({
    hostname: "127.0.0.1",
    port: Number(port),
    reusePort: false,
    async fetch(request) {
      const path = new URL(request.url).pathname;
      if (path === "/healthz") return json(200, { status: "ok" });
      const parts = path.split("/");
      if (request.method === "POST" && path === "/developer/v1/extensions")
        return json(201, { extension: create((await request.json()) as { name: string }) });
      if (request.method === "PATCH" && parts.length === 5)
        return json(200, {
          extension: patch(parts[4]!, ((await request.json()) as { description: string }).description),
        });
      if (request.method === "PUT" && parts[5] === "secrets") {
        putSecret(parts[4]!, parts[6]!, ((await request.json()) as { value: string }).value);
        return new Response(null, { status: 204 });
      }
      return json(404, { error: { code: "not_found" } });
    },
  });
  process.on("SIGTERM", () => process.exit(0));
}
