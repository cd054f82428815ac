/**
 * How a server proves it is the emulator whose token a client holds, without either side revealing the token:
 * the client sends a fresh nonce (`GET /healthz?challenge=<nonce>`), the server answers an HMAC of it keyed by
 * its admin token, and the client, holding the same token (from the data directory's private server.json),
 * computes the same value and compares. The message names the server's own URL (the `url` of server.json), so
 * a proof obtained from one server does not vouch for a listener at another address. The server signs it and
 * the tools and both helpers check it on every new connection before it carries the token or a key
 * (common/server-proof-hmac.ts; tools/calls/proven-transport.ts).
 */

/** What the server signs: the nonce, and its own URL, so a proof from one address vouches for no other. */
export function proofMessage(nonce: string, url: string): string {
  return `ext-server-proof\n${nonce}\n${url}`;
}

/** 22 characters of base64url are 128 bits; 128 is plenty. */
export const CHALLENGE_PATTERN = "^[A-Za-z0-9_-]{22,128}$";
