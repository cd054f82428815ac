import { connect } from "node:net";

/**
 * Sends only a request's head over a raw socket — announcing a Content-Length without sending the body —
 * and returns the status and parsed JSON body of the answer. fetch() cannot do this: it sets the length itself.
 */
export function announce(
  port: number,
  method: string,
  path: string,
  headers: Record<string, string>,
  contentLength: number,
): Promise<{ status: number; body: any; headers: Headers }> {
  return new Promise((resolve, reject) => {
    const head = Object.entries({ Host: "localhost", ...headers, "Content-Length": String(contentLength) })
      .map(([k, v]) => `${k}: ${v}\r\n`)
      .join("");
    const sock = connect(port, "127.0.0.1", () => sock.write(`${method} ${path} HTTP/1.1\r\n${head}\r\n`));
    let text = "";
    const timer = setTimeout(() => {
      sock.destroy();
      reject(new Error(`no answer: ${text}`));
    }, 5000);
    sock.on("data", (d) => {
      text += d.toString();
      const split = text.indexOf("\r\n\r\n");
      if (split >= 0 && text.trimEnd().endsWith("}")) {
        clearTimeout(timer);
        sock.destroy();
        const head = new Headers();
        for (const line of text.slice(0, split).split("\r\n").slice(1)) {
          const colon = line.indexOf(":");
          head.append(line.slice(0, colon).trim(), line.slice(colon + 1).trim());
        }
        resolve({ status: Number(text.slice(9, 12)), body: JSON.parse(text.slice(split + 4)), headers: head });
      }
    });
    sock.on("error", (e) => {
      clearTimeout(timer);
      reject(e);
    });
  });
}

/**
 * Sends `head` (a request line and headers, as written, ending in a blank line) over a raw socket to
 * `host:port` and reads the answer until the server closes the connection (send HTTP/1.0 or
 * `Connection: close`). fetch() cannot send a malformed or missing Host, nor a path it would normalise.
 */
export function rawExchange(
  host: string,
  port: number,
  head: string,
): Promise<{ status: number; body: any; text: string }> {
  return new Promise((resolve, reject) => {
    const sock = connect(port, host, () => sock.write(head));
    let text = "";
    const timer = setTimeout(() => {
      sock.destroy();
      reject(new Error(`no complete answer: ${text}`));
    }, 5000);
    sock.on("data", (d) => {
      text += d.toString();
    });
    sock.on("close", () => {
      clearTimeout(timer);
      const split = text.indexOf("\r\n\r\n");
      const bodyText = split < 0 ? "" : text.slice(split + 4);
      let body: unknown;
      try {
        body = JSON.parse(bodyText);
      } catch {
        body = undefined;
      }
      resolve({ status: Number(text.slice(9, 12)), body, text });
    });
    sock.on("error", (e) => {
      clearTimeout(timer);
      reject(e);
    });
  });
}
