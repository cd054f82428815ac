/**
 * A plain-http server that gives no proof and keeps its connections alive, as Python's ThreadingHTTPServer or
 * a Node server before 19 does: `closeListener()` stops it accepting while the connections it has stay open
 * and answered. Another listener can then take its port (`keepAliveServer(port)`), which is what the tools'
 * transport must never send a credential to.
 */
import { createServer, type Server, type Socket } from "node:net";

export interface SeenRequest {
  method: string;
  path: string;
  authorization: string | null;
  bodyBytes: number;
}

export interface KeepAliveServer {
  url: string;
  port: number;
  /** Every request read, the challenge included, in order. */
  seen: SeenRequest[];
  /** The connections it accepted so far. */
  accepted: number;
  /** Stops accepting; the connections it has stay open and answered. */
  closeListener(): void;
  /** Closes every connection it has (what a server does as it stops for good). */
  dropConnections(): void;
  stop(): void;
}

const HEAD_END = "\r\n\r\n";

/** Listens on `port` (0: a free one); a port another listener just left is waited for, not guessed at. */
export async function keepAliveServer(port = 0): Promise<KeepAliveServer> {
  const sockets = new Set<Socket>();
  const seen: SeenRequest[] = [];
  let accepted = 0;
  const server = createServer((socket) => {
    accepted++;
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
    socket.on("error", () => {});
    let buffer = Buffer.alloc(0);
    socket.on("data", (d: Buffer) => {
      buffer = Buffer.concat([buffer, d]);
      for (;;) {
        const end = buffer.indexOf(HEAD_END);
        if (end < 0) return;
        const lines = buffer.subarray(0, end).toString("latin1").split("\r\n");
        const header = (name: string) =>
          lines
            .slice(1)
            .find((l) => l.toLowerCase().startsWith(`${name}:`))
            ?.slice(name.length + 1)
            .trim() ?? null;
        const length = Number(header("content-length") ?? 0);
        if (buffer.length < end + HEAD_END.length + length) return;
        buffer = buffer.subarray(end + HEAD_END.length + length);
        const [method = "", path = ""] = (lines[0] ?? "").split(" ");
        seen.push({ method, path, authorization: header("authorization"), bodyBytes: length });
        const body = JSON.stringify({ status: "ok" });
        socket.write(
          `HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body}`,
        );
      }
    });
  });
  await listen(server, port);
  const address = server.address();
  const bound = typeof address === "object" && address ? address.port : 0;
  return {
    url: `http://127.0.0.1:${bound}`,
    port: bound,
    seen,
    get accepted() {
      return accepted;
    },
    closeListener: () => server.close(),
    dropConnections() {
      for (const s of sockets) s.destroy();
    },
    stop() {
      server.close();
      for (const s of sockets) s.destroy();
    },
  };
}

async function listen(server: Server, port: number): Promise<void> {
  const giveUpAt = performance.now() + 5000;
  for (;;) {
    const failure = await new Promise<Error | null>((resolve) => {
      server.once("error", resolve);
      server.listen(port, "127.0.0.1", () => {
        server.off("error", resolve);
        resolve(null);
      });
    });
    if (!failure) return;
    // The listener that left the port may still be closing: the port is free once it has closed.
    const inUse = (failure as NodeJS.ErrnoException).code === "EADDRINUSE";
    if (!inUse || port === 0 || performance.now() > giveUpAt) throw failure;
    await new Promise((r) => setImmediate(r));
  }
}
