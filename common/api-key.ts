/**
 * What a developer API key looks like, for the server that makes them and for the tools that start an
 * emulator for one run and must give its fixture keys of their own.
 */
const BASE62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";

/** `ext_` + 40 base62 characters (238 bits) from a stream of bytes. */
export function keyFromBytes(next: () => Uint8Array): string {
  // Rejection sampling keeps every character uniformly likely.
  let out = "";
  while (out.length < 40) {
    for (const byte of next()) {
      if (byte < 248 && out.length < 40) out += BASE62[byte % 62];
    }
  }
  return `ext_${out}`;
}

/**
 * A new plaintext developer key. Shown once, never stored. Its bytes come from Web Crypto (global in Node and Bun
 * alike): node:crypto would load Node's stream machinery into every start of the server.
 */
export function generateApiKey(): string {
  return keyFromBytes(() => crypto.getRandomValues(new Uint8Array(48)));
}

interface WithKeys {
  accounts: { apiKeys?: { key?: string }[] }[];
}

/**
 * `fixture` (changed in place, and returned) with a new key in place of each plaintext one, names and scopes
 * kept. For the demo fixture of an emulator started for one run (`ext exec`, both helpers' startEmulator()):
 * the demo's keys are public (the README prints them), and any user of the machine can reach a loopback port.
 */
export function withFreshKeys<F extends WithKeys>(fixture: F): F {
  for (const account of fixture.accounts)
    for (const k of account.apiKeys ?? []) if (typeof k.key === "string") k.key = generateApiKey();
  return fixture;
}
