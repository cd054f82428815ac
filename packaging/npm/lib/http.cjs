// @ts-check
/**
 * The control plane's transport: node:http (or node:https) over one keep-alive connection per client. A
 * test suite calls reset() before every test, and Node's fetch costs several times more per call than a
 * plain request on a reused socket.
 */
"use strict";
const http = require("node:http");
const https = require("node:https");

/**
 * Idle sockets are closed before the server's own idle timeout could close one under a request. The agent
 * unrefs idle sockets, so a kept connection never keeps the test process alive.
 */
const IDLE_SOCKET_MS = 4_000;

/**
 * @typedef {{ status: number; ok: boolean; text: string }} HttpAnswer
 * @typedef {(method: string, url: string, headers: Record<string, string>, body: string | undefined) => Promise<HttpAnswer>} HttpSend
 */

/** @returns {{ send: HttpSend; close(): void }} */
function httpClient() {
  const agents = {
    http: new http.Agent({ keepAlive: true, timeout: IDLE_SOCKET_MS }),
    https: new https.Agent({ keepAlive: true, timeout: IDLE_SOCKET_MS }),
  };
  /** @type {HttpSend} */
  const send = (method, url, headers, body) =>
    new Promise((resolve, reject) => {
      const target = new URL(url);
      const secure = target.protocol === "https:";
      if (!secure && target.protocol !== "http:") return reject(new TypeError(`unsupported protocol in ${url}`));
      const all = body === undefined ? headers : { ...headers, "content-length": String(Buffer.byteLength(body)) };
      const req = (secure ? https : http).request(
        target,
        { method, headers: all, agent: secure ? agents.https : agents.http },
        (res) => {
          /** @type {Buffer[]} */
          const chunks = [];
          res.on("data", (c) => chunks.push(c));
          res.on("error", reject);
          res.on("end", () => {
            const status = res.statusCode ?? 0;
            resolve({ status, ok: status >= 200 && status < 300, text: Buffer.concat(chunks).toString("utf8") });
          });
        },
      );
      req.on("error", reject);
      req.end(body);
    });
  return {
    send,
    close() {
      agents.http.destroy();
      agents.https.destroy();
    },
  };
}

module.exports = { httpClient };
