/**
 * Encryption of secret values at rest: AES-256-GCM with a random 96-bit IV per write. The additional
 * authenticated data binds a ciphertext to its extension and secret name, so a row copied onto another
 * secret (or another extension) fails authentication instead of decrypting.
 *
 * The 32-byte key lives in `<dataDir>/secrets.key` (mode 0600), created on first start and reused after;
 * memory mode uses a random key per process, which dies with the data it protects.
 */
import {
  chmodSync,
  closeSync,
  fsyncSync,
  linkSync,
  openSync,
  readFileSync,
  statSync,
  unlinkSync,
  writeSync,
} from "node:fs";
import { randomBytes } from "../../base/crypto";

export const KEY_BYTES = 32;
const IV_BYTES = 12;
const TAG_BYTES = 16;
export const SECRETS_KEY_FILE = "secrets.key";

/** The key file exists but cannot be used; starting would make every stored secret unreadable. */
export class SecretsKeyError extends Error {
  override name = "SecretsKeyError";
}

export interface SealedValue {
  /** Ciphertext followed by the 16-byte GCM tag. */
  ciphertext: Buffer;
  iv: Buffer;
}

export interface SecretCipher {
  seal(extensionId: string, name: string, plaintext: string): SealedValue;
  /** Throws when the key, the binding (extension + name) or the bytes do not match. */
  open(extensionId: string, name: string, sealed: SealedValue): string;
}

function aad(extensionId: string, name: string): Buffer {
  // NUL cannot occur in an extension id or a secret name, so the pair is unambiguous.
  return Buffer.from(`${extensionId}\u0000${name}`, "utf8");
}

/**
 * AES-GCM is node:crypto's alone (Web Crypto's is asynchronous, and a secret is sealed inside a synchronous write
 * transaction). Loaded by the first secret sealed or opened, not by every start: importing node:crypto loads
 * Node's stream machinery (server/base/crypto.ts).
 */
const aesGcm = () => process.getBuiltinModule("node:crypto");

export function createSecretCipher(key: Buffer): SecretCipher {
  if (key.length !== KEY_BYTES) throw new SecretsKeyError(`secrets key must be ${KEY_BYTES} bytes, got ${key.length}`);
  return {
    seal(extensionId, name, plaintext) {
      const iv = randomBytes(IV_BYTES);
      const cipher = aesGcm().createCipheriv("aes-256-gcm", key, iv);
      cipher.setAAD(aad(extensionId, name));
      const body = Buffer.concat([cipher.update(plaintext, "utf8"), cipher.final()]);
      return { ciphertext: Buffer.concat([body, cipher.getAuthTag()]), iv };
    },
    open(extensionId, name, { ciphertext, iv }) {
      const decipher = aesGcm().createDecipheriv("aes-256-gcm", key, iv);
      decipher.setAAD(aad(extensionId, name));
      decipher.setAuthTag(ciphertext.subarray(ciphertext.length - TAG_BYTES));
      return Buffer.concat([
        decipher.update(ciphertext.subarray(0, ciphertext.length - TAG_BYTES)),
        decipher.final(),
      ]).toString("utf8");
    },
  };
}

/** A fresh random key for memory mode. */
export function ephemeralKey(): Buffer {
  return randomBytes(KEY_BYTES);
}

export interface LoadedKey {
  key: Buffer;
  created: boolean;
  /** Group or other may read the file (someone loosened it after creation). */
  looseMode: boolean;
}

/**
 * Reads the key file, or creates it. Creation writes a private temp file and hard-links it into place: the
 * link fails if the file appeared meanwhile, so two processes starting together agree on one key and no
 * reader ever sees a half-written file.
 */
export function loadOrCreateKeyFile(path: string): LoadedKey {
  const existing = readKey(path);
  if (existing) return existing;
  const tmp = `${path}.${process.pid}.${randomBytes(4).toString("hex")}.tmp`;
  const fd = openSync(tmp, "wx", 0o600);
  try {
    writeSync(fd, randomBytes(KEY_BYTES));
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  chmodSync(tmp, 0o600); // the umask can only remove bits, but be explicit
  try {
    linkSync(tmp, path);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== "EEXIST") throw e;
  } finally {
    unlinkSync(tmp);
  }
  const loaded = readKey(path);
  if (!loaded) throw new SecretsKeyError(`could not create the secrets key file ${path}`);
  return { ...loaded, created: true };
}

function readKey(path: string): LoadedKey | null {
  let key: Buffer;
  try {
    key = readFileSync(path);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === "ENOENT") return null;
    throw new SecretsKeyError(
      `cannot read the secrets key file ${path}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`,
    );
  }
  if (key.length !== KEY_BYTES) {
    throw new SecretsKeyError(
      `the secrets key file ${path} has ${key.length} bytes, expected ${KEY_BYTES}; refusing to start. ` +
        "Restore the original file, or delete it together with the data directory's secrets (they cannot be decrypted without it).",
    );
  }
  return { key, created: false, looseMode: (statSync(path).mode & 0o077) !== 0 };
}
