/**
 * The message a server signs to prove it is the emulator whose admin token a client holds, without either
 * sending the token (the server: src/auth/server-proof.ts; the tools and both helpers check it on every new
 * connection before it carries the token or a key: src/calls/proven-transport.ts).
 */

/** What the server signs: the nonce, and its own URL, so a proof from one address vouches for no other. */
export function proofMessage(nonce: string, url: string): string {
  return `ext-server-proof\n${nonce}\n${url}`;
}
