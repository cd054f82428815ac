/**
 * The server proof's HMAC in Node and Bun (common/server-proof.ts says what is proven and why): the server signs
 * with it, the tools' transport checks with it. Apart from the message so that the client, which also runs in
 * the browser, reads the message without node:crypto.
 */
import { createHmac, timingSafeEqual } from "node:crypto";
import { proofMessage } from "./server-proof";

/** base64url(HMAC-SHA256(key = admin token, message = "ext-server-proof\n" + nonce + "\n" + url)). */
export function serverProof(adminToken: string, nonce: string, url: string): string {
  return createHmac("sha256", adminToken).update(proofMessage(nonce, url)).digest("base64url");
}

/** True when `proof` is the proof of `nonce` by the server at `url` holding `adminToken`; constant-time. */
export function checkServerProof(adminToken: string, nonce: string, url: string, proof: unknown): boolean {
  if (typeof proof !== "string") return false;
  const expected = Buffer.from(serverProof(adminToken, nonce, url));
  const given = Buffer.from(proof);
  return given.length === expected.length && timingSafeEqual(given, expected);
}
