import { afterAll, describe, expect, test } from "bun:test";
import { chmodSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  createSecretCipher,
  ephemeralKey,
  KEY_BYTES,
  loadOrCreateKeyFile,
  SecretsKeyError,
} from "../../server/resources/secrets/cipher";

const dirs: string[] = [];
const tempDir = () => {
  const d = mkdtempSync(join(tmpdir(), "ext-cipher-"));
  dirs.push(d);
  return d;
};
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

describe("secret cipher (AES-256-GCM)", () => {
  const cipher = createSecretCipher(ephemeralKey());

  test("round-trips UTF-8 and never stores the plaintext bytes", () => {
    const value = `pässwörd-🔑-${"x".repeat(100)}`;
    const sealed = cipher.seal("ext_a", "TOKEN", value);
    expect(sealed.iv.length).toBe(12);
    expect(sealed.ciphertext.length).toBe(Buffer.byteLength(value) + 16);
    expect(sealed.ciphertext.includes(Buffer.from("x".repeat(16)))).toBe(false);
    expect(cipher.open("ext_a", "TOKEN", sealed)).toBe(value);
  });

  test("a fresh IV per seal: the same value twice gives different ciphertexts", () => {
    const a = cipher.seal("ext_a", "TOKEN", "same");
    const b = cipher.seal("ext_a", "TOKEN", "same");
    expect(a.iv.equals(b.iv)).toBe(false);
    expect(a.ciphertext.equals(b.ciphertext)).toBe(false);
  });

  test("a ciphertext moved to another secret name or extension fails authentication", () => {
    const sealed = cipher.seal("ext_a", "TOKEN", "v");
    expect(() => cipher.open("ext_a", "OTHER", sealed)).toThrow();
    expect(() => cipher.open("ext_b", "TOKEN", sealed)).toThrow();
  });

  test("a flipped bit or another key fails authentication", () => {
    const sealed = cipher.seal("ext_a", "TOKEN", "value");
    const tampered = Buffer.from(sealed.ciphertext);
    tampered[0] = tampered[0]! ^ 1;
    expect(() => cipher.open("ext_a", "TOKEN", { ciphertext: tampered, iv: sealed.iv })).toThrow();
    expect(() => createSecretCipher(ephemeralKey()).open("ext_a", "TOKEN", sealed)).toThrow();
  });

  test("a key that is not 32 bytes is refused", () => {
    expect(() => createSecretCipher(Buffer.alloc(16))).toThrow(SecretsKeyError);
  });
});

describe("secrets key file", () => {
  test("is created with 32 random bytes and mode 0600, then reused as it is", () => {
    const path = join(tempDir(), "secrets.key");
    const first = loadOrCreateKeyFile(path);
    expect(first.created).toBe(true);
    expect(first.key.length).toBe(KEY_BYTES);
    expect(statSync(path).mode & 0o777).toBe(0o600);
    expect(readFileSync(path).equals(first.key)).toBe(true);
    const again = loadOrCreateKeyFile(path);
    expect(again.created).toBe(false);
    expect(again.key.equals(first.key)).toBe(true);
    expect(again.looseMode).toBe(false);
  });

  test("leaves no temp file behind", () => {
    const dir = tempDir();
    loadOrCreateKeyFile(join(dir, "secrets.key"));
    expect(readdirSync(dir)).toEqual(["secrets.key"]);
  });

  test("a file of the wrong size refuses with a clear error, and is left untouched", () => {
    const path = join(tempDir(), "secrets.key");
    writeFileSync(path, "too short", { mode: 0o600 });
    expect(() => loadOrCreateKeyFile(path)).toThrow(/has 9 bytes, expected 32; refusing to start/);
    expect(readFileSync(path, "utf8")).toBe("too short");
  });

  test("a file readable by others is reported as loose", () => {
    const path = join(tempDir(), "secrets.key");
    writeFileSync(path, Buffer.alloc(KEY_BYTES, 7), { mode: 0o644 });
    chmodSync(path, 0o644);
    expect(loadOrCreateKeyFile(path).looseMode).toBe(true);
  });
});
