/**
 * A client's check that a server is the emulator whose admin token it holds, without sending the token
 * (the server side: src/auth/server-proof.ts). Web Crypto, so it runs wherever the client does (Node, Bun).
 * The helpers' connections (emulator-connection.ts) prove their server with it before the first request
 * that carries the token or a key, and again after a request could not reach it.
 */
import { StartEmulatorError } from "./errors";
import type { FetchFunction } from "./index";

/** What the server signs: the nonce, and its own URL, so a proof from one address vouches for no other. */
export function proofMessage(nonce: string, url: string): string {
  return `ext-server-proof\n${nonce}\n${url}`;
}

const base64url = (bytes: Uint8Array) =>
  btoa(String.fromCharCode(...bytes))
    .replace(/\+/g, "-")
    .replace(/\//g, "_")
    .replace(/=+$/, "");

/** base64url(HMAC-SHA256(key = admin token, message = proofMessage(nonce, url))). */
export async function expectedProof(adminToken: string, nonce: string, url: string): Promise<string> {
  const encoder = new TextEncoder();
  const key = await crypto.subtle.importKey(
    "raw",
    encoder.encode(adminToken),
    { name: "HMAC", hash: "SHA-256" },
    false,
    ["sign"],
  );
  return base64url(new Uint8Array(await crypto.subtle.sign("HMAC", key, encoder.encode(proofMessage(nonce, url)))));
}

/**
 * Why the server at `url` did not prove it holds `adminToken`, or null when it did. Sends no credential. A
 * challenge that reaches nobody rejects with `send`'s own error: nothing answered, which is not a wrong proof.
 */
export async function proveServer(send: FetchFunction, url: string, adminToken: string): Promise<string | null> {
  const nonce = base64url(crypto.getRandomValues(new Uint8Array(32)));
  const answer = await send(new Request(`${url}/healthz?challenge=${nonce}`, { redirect: "manual" }));
  if (!answer.ok) return `it answered the challenge with ${answer.status}`;
  let proof: unknown;
  try {
    proof = ((await answer.json()) as { proof?: unknown } | null)?.proof;
  } catch {
    return "its answer to the challenge is not JSON";
  }
  if (typeof proof !== "string") return "its answer carries no proof";
  const expected = await expectedProof(adminToken, nonce, url);
  let differs = proof.length ^ expected.length;
  for (let i = 0; i < expected.length; i++) differs |= (proof.charCodeAt(i) || 0) ^ expected.charCodeAt(i);
  return differs === 0 ? null : "its proof is wrong";
}

/**
 * `send` (a fetch) made to prove the server at `url` before the first request carrying a credential (an Authorization
 * header, a session), and again after any request that could not reach it: the port of a server that stopped
 * may have been taken by someone else. A server that fails the proof gets nothing more, and the call rejects
 * with a StartEmulatorError saying so (`who` names the helper's function). Without a token there is nothing to
 * prove with (an open control plane): `send` is returned as it is.
 */
export function provingFetch(send: FetchFunction, url: string, adminToken: string, who: string): FetchFunction {
  if (!adminToken) return send;
  let proven: Promise<void> | null = null;
  const prove = () =>
    (proven ??= proveServer(send, url, adminToken).then(
      (why) => {
        if (why === null) return;
        proven = null;
        throw new StartEmulatorError(
          `${who}: the server at ${url} did not prove it is the emulator this admin token belongs to (${why}); nothing was sent to it. Is it still running at that address?`,
        );
      },
      (e) => {
        proven = null;
        throw e;
      },
    ));
  return async (request) => {
    if (request.headers.has("authorization") || request.headers.has("x-ext-session")) await prove();
    try {
      return await send(request);
    } catch (e) {
      proven = null;
      throw e;
    }
  };
}
