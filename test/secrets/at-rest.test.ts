/**
 * Secret values at rest: encrypted in the SQLite file and its WAL, sealed with the data directory's key,
 * the key reused across restarts, a damaged key refusing the start, memory mode leaving no key file.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { randomBytes } from "node:crypto";
import { chmodSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import { parseServerConfig } from "../../server/base/config";
import { createLogger } from "../../server/base/logger";
import { createSecretCipher, SecretsKeyError } from "../../server/resources/secrets/cipher";
import { startServer } from "../../server/start/server";
import { baseFixture, DEMO_KEY, startTestEmulator, stopTestEmulator, type TestEmulator } from "../helpers/emulator";

const MARK = `AtRestSecret${randomBytes(8).toString("hex")}`;
const started: TestEmulator[] = [];
afterAll(async () => {
  for (const e of started) await stopTestEmulator(e);
});

async function start(opts: Parameters<typeof startTestEmulator>[0] = {}) {
  const emu = await startTestEmulator(opts);
  started.push(emu);
  return emu;
}

async function createWithSecret(emu: TestEmulator, name: string, value: string): Promise<string> {
  const ext = await emu.client.POST("/developer/v1/extensions", { body: { name: `At Rest ${name}` } });
  expect(ext.response.status).toBe(201);
  const id = ext.data?.extension.id ?? "";
  const put = await emu.client.PUT("/developer/v1/extensions/{id}/secrets/{key}", {
    params: { path: { id, key: name } },
    body: { value },
  });
  expect(put.response.status).toBe(204);
  return id;
}

function secretRow(emu: TestEmulator, extensionId: string, name: string) {
  return emu.runtime.db.$client
    .prepare<{ ciphertext: Uint8Array; iv: Uint8Array }, [string, string]>(
      "SELECT ciphertext, iv FROM secrets WHERE extension_id = ? AND name = ?",
    )
    .get(extensionId, name)!;
}

describe("PUT /extensions/:id/secrets/:key (at rest)", () => {
  test("the value is absent in plain text from the SQLite file and its WAL, and decrypts with the data directory's key", async () => {
    const emu = await start();
    const value = `${MARK}-${"v".repeat(200)}`;
    const extId = await createWithSecret(emu, "DB_PASSWORD", value);
    const files = readdirSync(emu.dataDir).filter((f) => f.startsWith("ext.sqlite"));
    expect(files).toContain("ext.sqlite-wal");
    const bytes = Buffer.concat(files.map((f) => readFileSync(join(emu.dataDir, f))));
    // The search does find what is stored in clear (the name), so its silence about the value means something.
    expect(bytes.includes(Buffer.from("DB_PASSWORD"))).toBe(true);
    expect(bytes.includes(Buffer.from(MARK))).toBe(false);
    expect(bytes.includes(Buffer.from("v".repeat(64)))).toBe(false);

    const row = secretRow(emu, extId, "DB_PASSWORD");
    const key = readFileSync(join(emu.dataDir, "secrets.key"));
    const cipher = createSecretCipher(key);
    expect(
      cipher.open(extId, "DB_PASSWORD", { ciphertext: Buffer.from(row.ciphertext), iv: Buffer.from(row.iv) }),
    ).toBe(value);
  });

  test("a restart reuses the key file: stored secrets stay readable and listed", async () => {
    const first = await start();
    const extId = await createWithSecret(first, "KEEP_ME", MARK);
    const keyBefore = readFileSync(join(first.dataDir, "secrets.key"));
    await first.stop(true);
    const second = await start({ dataDir: first.dataDir });
    expect(readFileSync(join(second.dataDir, "secrets.key")).equals(keyBefore)).toBe(true);
    expect(
      (await second.client.GET("/developer/v1/extensions/{id}/secrets", { params: { path: { id: extId } } })).data,
    ).toEqual({ keys: ["KEEP_ME"] });
    const row = secretRow(second, extId, "KEEP_ME");
    expect(
      createSecretCipher(keyBefore).open(extId, "KEEP_ME", {
        ciphertext: Buffer.from(row.ciphertext),
        iv: Buffer.from(row.iv),
      }),
    ).toBe(MARK);
  });

  test("a key file of the wrong size refuses to start with a clear error", async () => {
    const emu = await start();
    await emu.stop(true);
    writeFileSync(join(emu.dataDir, "secrets.key"), randomBytes(31));
    const config = parseServerConfig({ port: 0, dataDir: emu.dataDir, logLevel: "silent", rateLimits: false }, {});
    expect(() => startServer(config, { logger: createLogger("silent") })).toThrow(SecretsKeyError);
    expect(() => startServer(config, { logger: createLogger("silent") })).toThrow(/31 bytes, expected 32/);
  });

  test("memory mode encrypts with a per-process key and writes no key file", async () => {
    const emu = await start({ config: { memory: true } });
    await createWithSecret(emu, "IN_MEMORY", MARK);
    expect((await emu.client.GET("/developer/v1/extensions")).response.status).toBe(200);
    // Memory mode's files live in its own temp directory (the blob store's parent); the configured data
    // directory stays untouched. Both are searched, and the first is known to hold files.
    const memoryDir = dirname(emu.runtime.blobs.root);
    const memoryFiles = readdirSync(memoryDir, { recursive: true }).map(String);
    expect(memoryFiles).toContain("blobs");
    expect(memoryFiles.filter((f) => basename(f) === "secrets.key")).toEqual([]);
    expect(readdirSync(emu.dataDir)).toEqual([]);
    const row = emu.runtime.db.$client.prepare<{ ciphertext: Uint8Array }, []>("SELECT ciphertext FROM secrets").get()!;
    expect(Buffer.from(row.ciphertext).includes(Buffer.from(MARK))).toBe(false);
  });

  test("no log line carries a secret value, even at debug level", async () => {
    const emu = await start();
    await emu.stop(true);
    chmodSync(join(emu.dataDir, "secrets.key"), 0o644); // makes start-up log a note (modes tightened): the capture works
    const lines: string[] = [];
    const config = parseServerConfig({ port: 0, dataDir: emu.dataDir, logLevel: "debug", rateLimits: false }, {});
    const server = startServer(config, {
      logger: createLogger("debug", (l) => lines.push(l)),
      seedFixture: baseFixture(),
    });
    try {
      const h = { authorization: `Bearer ${DEMO_KEY}`, "content-type": "application/json" };
      const ext = (await (
        await fetch(`${server.baseUrl}/extensions`, {
          method: "POST",
          headers: h,
          body: JSON.stringify({ name: "Logged" }),
        })
      ).json()) as { extension: { id: string } };
      const path = `${server.baseUrl}/extensions/${ext.extension.id}/secrets/LOGGED`;
      for (const body of [
        { value: MARK },
        { value: [MARK] },
        { value: MARK, x: MARK },
        { value: MARK + "x".repeat(70_000) },
      ]) {
        await fetch(path, { method: "PUT", headers: h, body: JSON.stringify(body) });
      }
      await fetch(path, { method: "PUT", headers: h, body: `{"value":"${MARK}` });
    } finally {
      await server.stop(true);
    }
    expect(lines.some((l) => l.includes("made the data directory private"))).toBe(true);
    expect(lines.filter((l) => l.includes(MARK))).toEqual([]);
  });
});
