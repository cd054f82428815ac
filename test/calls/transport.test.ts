/**
 * The tools' one transport (tools/calls/transport.ts) over real sockets: a proven server is proven once per
 * connection and again on a new one; answers framed every way HTTP/1.1 frames them; the timeout counts from
 * an upload's last byte and cuts a silent server; redirects come back unfollowed; a key is withheld from an
 * unproven plain-http server after its connection failed.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { createServer, type Server, type Socket } from "node:net";
import { serverProof } from "../../common/server-proof-hmac";
import {
  CredentialWithheldError,
  createTransport,
  RequestTimeoutError,
  ServerChangedError,
} from "../../tools/calls/transport";
import { keepAliveServer } from "./keep-alive-server";

const TOKEN = "adm_transport_test_token_0123456789abcdef";
const UPLOAD_TIMEOUT_MS = 1000;
const CHUNKS = 4;
const CHUNK_GAP_MS = 300;
/**
 * The wait of the event-stream test, and its silence (twice the wait): the wait leaves room for the proof and the
 * head on a machine busy with other work (200 ms did not, once, under a load of 20 on two cores).
 */
const STREAM_TIMEOUT_MS = 1000;
const STREAM_SILENCE_MS = 2000; // twice STREAM_TIMEOUT_MS
/** A body trickling a byte every TRICKLE_MS never falls silent for the wait, but never ends within it. */
const TRICKLE_MS = 50;
const TRICKLE_TIMEOUT_MS = 600;
const stops: Array<() => void> = [];
afterAll(() => {
  for (const stop of stops) stop();
});

/** An emulator-like server: proves itself with TOKEN, counts proofs and connections, answers `handle`. */
function provingServer(handle: (req: Request) => Response | Promise<Response> = () => Response.json({ ok: true })) {
  const seen = { proofs: 0, requests: [] as { path: string; authorization: string | null }[] };
  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    idleTimeout: 30,
    fetch(req): Response | Promise<Response> {
      const u = new URL(req.url);
      const challenge = u.searchParams.get("challenge");
      if (u.pathname === "/healthz" && challenge) {
        seen.proofs++;
        return Response.json({ status: "ok", proof: serverProof(TOKEN, challenge, u.origin) });
      }
      seen.requests.push({ path: u.pathname, authorization: req.headers.get("authorization") });
      return handle(req);
    },
  });
  const url: string = `http://127.0.0.1:${server.port}`;
  stops.push(() => server.stop(true));
  return { server, seen, url };
}

/** A raw TCP server writing `answer` to each request it reads (for framings Bun.serve never writes). */
function rawServer(answer: (head: string, socket: Socket) => void): Promise<{ url: string; server: Server }> {
  const server = createServer((socket) => {
    let head = "";
    socket.on("data", (d) => {
      head += d.toString("latin1");
      if (head.includes("\r\n\r\n")) {
        const h = head;
        head = "";
        answer(h, socket);
      }
    });
    socket.on("error", () => {});
  });
  stops.push(() => server.close());
  return new Promise((resolve) =>
    server.listen(0, "127.0.0.1", () => {
      const a = server.address();
      resolve({ server, url: `http://127.0.0.1:${typeof a === "object" && a ? a.port : 0}` });
    }),
  );
}

const get = (url: string, key = "ext_k") => new Request(url, { headers: { authorization: `Bearer ${key}` } });

describe("a server proven with its admin token", () => {
  test("is proven once per connection: two calls, one proof; the key goes only after it", async () => {
    const s = provingServer();
    const t = createTransport({ timeoutMs: 5000, proof: { adminToken: TOKEN, url: s.url } });
    expect(await t.prove()).toBeNull();
    for (let i = 0; i < 2; i++)
      expect(await (await t.fetch(get(`${s.url}/developer/v1/extensions`))).json()).toEqual({ ok: true });
    expect(s.seen.proofs).toBe(1);
    expect(s.seen.requests).toHaveLength(2);
  });

  test("a connection the server closed is replaced by one proven again", async () => {
    const s = provingServer((req) =>
      req.url.endsWith("/close")
        ? new Response("{}", { headers: { connection: "close", "content-type": "application/json" } })
        : Response.json({ ok: true }),
    );
    const t = createTransport({ timeoutMs: 5000, proof: { adminToken: TOKEN, url: s.url } });
    await (await t.fetch(get(`${s.url}/close`))).text();
    await (await t.fetch(get(`${s.url}/after`))).text();
    expect(s.seen.proofs).toBe(2);
  });

  test("an upload (a streamed body) goes on a new connection, proven first, never on a kept one it could not resend", async () => {
    const s = provingServer(async (req) => {
      await req.arrayBuffer();
      return Response.json({ ok: true });
    });
    const t = createTransport({ timeoutMs: 5000, proof: { adminToken: TOKEN, url: s.url } });
    await (await t.fetch(get(`${s.url}/developer/v1/extensions`))).text();
    expect(s.seen.proofs).toBe(1);
    const body = new Blob([new Uint8Array(1000)]).stream();
    const upload = new Request(`${s.url}/developer/v1/extensions/ext_1/versions`, {
      method: "POST",
      headers: { authorization: "Bearer ext_k", "content-length": "1000" },
      body,
      duplex: "half",
    } as RequestInit);
    expect(await (await t.fetch(upload)).json()).toEqual({ ok: true });
    expect(s.seen.proofs).toBe(2);
    // A call that can be sent again still takes the kept connection.
    await (await t.fetch(get(`${s.url}/developer/v1/extensions`))).text();
    expect(s.seen.proofs).toBe(2);
  });

  test("a server that changed under the command: no key, ServerChangedError", async () => {
    const s = provingServer();
    const port = s.server.port;
    const t = createTransport({ timeoutMs: 5000, proof: { adminToken: TOKEN, url: s.url } });
    expect(await t.prove()).toBeNull();
    s.server.stop(true);
    const seen: (string | null)[] = [];
    const other = Bun.serve({
      hostname: "127.0.0.1",
      port,
      fetch(req) {
        seen.push(req.headers.get("authorization"));
        return Response.json({ status: "ok", proof: "not-it" });
      },
    });
    stops.push(() => other.stop(true));
    const e = await t.fetch(get(`${s.url}/developer/v1/extensions`)).then(
      () => null,
      (x) => x,
    );
    expect(e).toBeInstanceOf(ServerChangedError);
    expect((e as Error).message).toContain(
      `the server at ${s.url} is no longer the one this command started with (its proof is wrong)`,
    );
    expect(seen).toEqual([null]);
  });

  test("kept connections the server closed together as they were reused: the call is sent again on a new one, proven first", async () => {
    // What a server's idle limit does to a pool: it closes every kept connection at once, and a call reusing one
    // just then gets no answer. The second kept connection is just as dead: the call goes again on a new one.
    let proofs = 0;
    const answered = new WeakSet<Socket>();
    let dropKept = false;
    const { url } = await rawServer((head, socket) => {
      const target = head.slice(head.indexOf(" ") + 1, head.indexOf(" HTTP/"));
      const challenge = new URL(target, "http://x").searchParams.get("challenge");
      let body = JSON.stringify({ ok: true });
      if (challenge) {
        proofs++;
        body = JSON.stringify({ status: "ok", proof: serverProof(TOKEN, challenge, url) });
      } else if (dropKept && answered.has(socket)) return void socket.destroy();
      else answered.add(socket);
      socket.write(
        `HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body}`,
      );
    });
    const t = createTransport({ timeoutMs: 5000, proof: { adminToken: TOKEN, url } });
    const two = await Promise.all([t.fetch(get(`${url}/a`)), t.fetch(get(`${url}/b`))]);
    for (const r of two) await r.text();
    expect(proofs).toBe(2);
    dropKept = true;
    expect(await (await t.fetch(get(`${url}/c`))).json()).toEqual({ ok: true });
    expect(proofs).toBe(3);
  });

  test("answers framed by chunks (with trailers), by the connection's end, and HTTP/1.0", async () => {
    const bodies: Record<string, string> = {
      "/chunked":
        "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5;ext=1\r\nhello\r\n6\r\n world\r\n0\r\nX-Trailer: t\r\n\r\n",
      "/close": "HTTP/1.1 200 OK\r\nConnection: close\r\n\r\nuntil the end",
      "/old": "HTTP/1.0 200 OK\r\nContent-Length: 3\r\n\r\nold",
    };
    const raw = await rawServer((head, socket) => {
      const path = head.split(" ")[1]!;
      if (path.startsWith("/healthz?challenge=")) {
        const body = JSON.stringify({ status: "ok", proof: serverProof(TOKEN, path.split("=")[1]!, url) });
        socket.write(
          `HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body}`,
        );
        return;
      }
      socket.write(bodies[path]!);
      if (!path.startsWith("/chunked")) socket.end();
    });
    const url = raw.url;
    const t = createTransport({ timeoutMs: 5000, proof: { adminToken: TOKEN, url } });
    expect(await (await t.fetch(get(`${url}/chunked`))).text()).toBe("hello world");
    expect(await (await t.fetch(get(`${url}/close`))).text()).toBe("until the end");
    expect(await (await t.fetch(get(`${url}/old`))).text()).toBe("old");
  });

  test("an answer that arrives in pieces, its head cut mid-line, is read once the rest comes", async () => {
    const raw = await rawServer((head, socket) => {
      const path = head.split(" ")[1]!;
      const body = path.startsWith("/healthz?challenge=")
        ? JSON.stringify({ status: "ok", proof: serverProof(TOKEN, path.split("=")[1]!, url) })
        : '{"pieces":true}';
      const answer = `HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body}`;
      socket.write(answer.slice(0, 25));
      // The rest a moment later, as a proxy sends what its upstream has not yet given it.
      setTimeout(() => socket.write(answer.slice(25)), 20);
    });
    const url = raw.url;
    const t = createTransport({ timeoutMs: 5000, proof: { adminToken: TOKEN, url } });
    expect(await (await t.fetch(get(`${url}/pieces`))).json()).toEqual({ pieces: true });
  });

  test("an answer that comes before the upload is read (a refusal) is returned, not a broken pipe", async () => {
    const s = provingServer(() => Response.json({ error: { code: "payload_too_large" } }, { status: 413 }));
    const t = createTransport({ timeoutMs: 5000, proof: { adminToken: TOKEN, url: s.url } });
    const size = 32 * 1024 * 1024;
    const body = new ReadableStream<Uint8Array>({
      pull(c) {
        c.enqueue(new Uint8Array(1024 * 1024));
      },
    });
    const r = await t.fetch(
      new Request(`${s.url}/upload`, {
        method: "POST",
        body,
        headers: { "content-length": String(size), authorization: "Bearer k" },
        duplex: "half",
      } as RequestInit),
    );
    expect(r.status).toBe(413);
  });
});

describe("the timeout", () => {
  test("counts from an upload's last byte: an upload longer than the wait passes; a silent answer after it does not", async () => {
    const s = provingServer(async (req) => {
      await req.arrayBuffer();
      // Never answered: the wait after the last byte is what runs out.
      if (req.url.endsWith("/hang")) return new Promise<Response>(() => {});
      return Response.json({ ok: true });
    });
    const t = createTransport({ timeoutMs: UPLOAD_TIMEOUT_MS, proof: { adminToken: TOKEN, url: s.url } });
    const slowBody = () => {
      let sent = 0;
      return new ReadableStream<Uint8Array>({
        async pull(c) {
          if (sent === CHUNKS) return c.close();
          // The upload's own time (its source producing the next chunk) is longer in all than the wait.
          await Bun.sleep(CHUNK_GAP_MS);
          sent++;
          c.enqueue(new Uint8Array(10));
        },
      });
    };
    const upload = (path: string) =>
      t.fetch(
        new Request(`${s.url}${path}`, {
          method: "POST",
          body: slowBody(),
          headers: { "content-length": String(CHUNKS * 10) },
          duplex: "half",
        } as RequestInit),
      );
    expect((await upload("/upload")).status).toBe(200);
    const e = await upload("/hang").then(
      () => null,
      (x) => x,
    );
    expect(e).toBeInstanceOf(RequestTimeoutError);
    expect((e as Error).message).toBe(
      `${s.url} did not answer POST /hang within ${UPLOAD_TIMEOUT_MS / 1000} s (EXT_REQUEST_TIMEOUT sets the wait, in seconds)`,
    );
  });

  test("a server that accepts and never answers is cut, proven or not", async () => {
    const silent = await rawServer(() => {});
    for (const proof of [{ adminToken: TOKEN, url: silent.url }, null]) {
      const t = createTransport({ timeoutMs: 200, proof });
      if (proof) expect(await t.prove()).toBe("it did not answer the challenge (no answer within 0.2 s)");
      const e = await t.fetch(get(`${silent.url}/developer/v1/extensions`)).then(
        () => null,
        (x) => x,
      );
      // Proven or not, the silent server got nothing but the first request (the challenge, when proven).
      expect(e).toBeInstanceOf(RequestTimeoutError);
    }
  });

  test("a live event stream, once begun, may wait longer than the timeout", async () => {
    const s = provingServer(
      () =>
        new Response(
          new ReadableStream({
            async start(c) {
              c.enqueue(new TextEncoder().encode("data: 1\n\n"));
              // Silent for twice the wait, as a stream between events is.
              await Bun.sleep(STREAM_SILENCE_MS);
              c.enqueue(new TextEncoder().encode("data: 2\n\n"));
              c.close();
            },
          }),
          { headers: { "content-type": "text/event-stream" } },
        ),
    );
    const t = createTransport({ timeoutMs: STREAM_TIMEOUT_MS, proof: { adminToken: TOKEN, url: s.url } });
    expect(await (await t.fetch(get(`${s.url}/_emulator/requests/stream`))).text()).toBe("data: 1\n\ndata: 2\n\n");
  });
});

describe("the timeout is a deadline for the answer", () => {
  /** An answer of `type` whose body trickles a byte every TRICKLE_MS, for far longer than the wait. */
  const trickle = (type: string) =>
    new Response(
      new ReadableStream<Uint8Array>({
        async pull(c) {
          await Bun.sleep(TRICKLE_MS);
          c.enqueue(new TextEncoder().encode(" "));
        },
      }),
      { headers: { "content-type": type } },
    );

  /** A list call to `url`, through a transport holding the server to its proof and one that does not: cut by the timeout. */
  const expectCutProvenOrNot = async (url: string) => {
    for (const proof of [{ adminToken: TOKEN, url }, null]) {
      const t = createTransport({ timeoutMs: TRICKLE_TIMEOUT_MS, proof });
      const e = await t
        .fetch(get(`${url}/developer/v1/extensions`))
        .then((r) => r.text())
        .then(
          () => null,
          (x) => x,
        );
      expect(e).toBeInstanceOf(RequestTimeoutError);
    }
  };

  test("a body trickling a byte at a time is cut, proven server or not", async () => {
    const s = provingServer(() => trickle("application/json"));
    await expectCutProvenOrNot(s.url);
  });

  test("an answer to the challenge that trickles is cut: the server is not proven", async () => {
    const s = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: () => trickle("application/json") });
    stops.push(() => s.stop(true));
    const url = `http://127.0.0.1:${s.port}`;
    const t = createTransport({ timeoutMs: TRICKLE_TIMEOUT_MS, proof: { adminToken: TOKEN, url } });
    expect(await t.prove()).toBe(`it did not answer the challenge (no answer within ${TRICKLE_TIMEOUT_MS / 1000} s)`);
  });

  test("text/event-stream switches the timeout off only on the stream route", async () => {
    const s = provingServer(() => trickle("text/event-stream"));
    await expectCutProvenOrNot(s.url);
  });
});

describe("without a token", () => {
  test("a redirect comes back as it is: never followed", async () => {
    const elsewhere = provingServer();
    const s = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: () => Response.redirect(`${elsewhere.url}/x`, 302) });
    stops.push(() => s.stop(true));
    const r = await createTransport({ timeoutMs: 2000 }).fetch(get(`http://127.0.0.1:${s.port}/y`));
    expect([r.status, r.headers.get("location")]).toEqual([302, `${elsewhere.url}/x`]);
    expect(elsewhere.seen.requests).toEqual([]);
  });

  test("over plain http, a server that answers the challenge is held to its first answer on every connection", async () => {
    const s = provingServer();
    const t = createTransport({ timeoutMs: 2000 });
    expect((await t.fetch(get(`${s.url}/a`))).status).toBe(200);
    const port = s.server.port;
    s.server.stop(true);
    const seen: (string | null)[] = [];
    const taker = Bun.serve({
      hostname: "127.0.0.1",
      port,
      fetch(req) {
        seen.push(req.headers.get("authorization"));
        return Response.json({ status: "ok", proof: "a guess" });
      },
    });
    stops.push(() => taker.stop(true));
    const e = await t.fetch(get(`${s.url}/b`)).then(
      () => null,
      (x) => x,
    );
    expect(e).toBeInstanceOf(ServerChangedError);
    expect((e as Error).message).toContain("it answers the challenge otherwise than it did at first");
    expect(seen).toEqual([null]);
  });

  test("over plain http, each new connection to a held server gets a nonce never sent before; restarted as it was, it is proven again", async () => {
    /** The first challenge on each connection (by the client's port), and every challenge. */
    const opening = new Map<number, string>();
    const all: string[] = [];
    const serve = (port = 0) =>
      Bun.serve({
        hostname: "127.0.0.1",
        port,
        fetch(req, server) {
          const u = new URL(req.url);
          const challenge = u.searchParams.get("challenge");
          if (challenge === null) return Response.json({ ok: true });
          const from = server.requestIP(req)?.port ?? 0;
          if (!opening.has(from)) opening.set(from, challenge);
          all.push(challenge);
          return Response.json({ status: "ok", proof: serverProof(TOKEN, challenge, u.origin) });
        },
      });
    let s = serve();
    const port = s.port;
    const url = `http://127.0.0.1:${port}`;
    const t = createTransport({ timeoutMs: 2000 });
    for (let round = 0; round < 3; round++) {
      expect((await t.fetch(get(`${url}/a`))).status).toBe(200);
      // The owner restarts it (same token, same port): its connections end, the next one is challenged again.
      s.stop(true);
      s = serve(port);
    }
    stops.push(() => s.stop(true));
    expect((await t.fetch(get(`${url}/a`))).status).toBe(200);
    const openings = [...opening.values()];
    expect(openings.length).toBe(4);
    expect(new Set(openings).size).toBe(4);
    // A nonce goes to the proven server once (to learn its proof) and to one later connection once.
    const counts = Map.groupBy(all, (c) => c);
    expect([...counts.values()].every((c) => c.length <= 2)).toBe(true);
  });

  test("over plain http, a listener that saw a challenge cannot replay it: a held server that failed once gets nothing again", async () => {
    const owner = (port = 0) =>
      Bun.serve({
        hostname: "127.0.0.1",
        port,
        fetch(req) {
          const u = new URL(req.url);
          const challenge = u.searchParams.get("challenge");
          if (challenge === null) return Response.json({ ok: true });
          return Response.json({ status: "ok", proof: serverProof(TOKEN, challenge, u.origin) });
        },
      });
    const first = owner();
    const port = first.port;
    const url = `http://127.0.0.1:${port}`;
    const t = createTransport({ timeoutMs: 2000 });
    expect((await t.fetch(get(`${url}/a`))).status).toBe(200);
    first.stop(true);
    // Another user takes the port, learns the challenge, fails it.
    const seen: { challenge: string | null; authorization: string | null }[] = [];
    const taker = (proofs: Map<string, string>) =>
      Bun.serve({
        hostname: "127.0.0.1",
        port,
        fetch(req) {
          const challenge = new URL(req.url).searchParams.get("challenge");
          seen.push({ challenge, authorization: req.headers.get("authorization") });
          return Response.json({ status: "ok", proof: proofs.get(challenge ?? "") ?? "a guess" });
        },
      });
    let mallory = taker(new Map());
    const e = await t.fetch(get(`${url}/b`)).then(
      () => null,
      (x) => x,
    );
    expect(e).toBeInstanceOf(ServerChangedError);
    mallory.stop(true);
    // The owner's server comes back; the taker asks it for the proof of every challenge it saw, then takes the port again.
    const back = owner(port);
    const learnt = new Map<string, string>();
    for (const { challenge } of seen)
      if (challenge)
        learnt.set(
          challenge,
          ((await (await fetch(`${url}/healthz?challenge=${challenge}`)).json()) as { proof: string }).proof,
        );
    back.stop(true);
    mallory = taker(learnt);
    stops.push(() => mallory.stop(true));
    const seenBefore = seen.length;
    const again = await t.fetch(get(`${url}/c`)).then(
      () => null,
      (x) => x,
    );
    expect(again).toBeInstanceOf(ServerChangedError);
    expect(seen.slice(seenBefore)).toEqual([]);
    expect(seen.every((s) => s.authorization === null)).toBe(true);
  });

  /** A plain server that is no emulator (no proof): it records the Authorization header of every request. */
  function plainServer(port = 0) {
    const seen: (string | null)[] = [];
    const server = Bun.serve({
      hostname: "127.0.0.1",
      port,
      fetch(req) {
        seen.push(req.headers.get("authorization"));
        return Response.json({ ok: true });
      },
    });
    stops.push(() => server.stop(true));
    return { server, seen, url: `http://127.0.0.1:${server.port}` };
  }

  test("over plain http, a server with no proof closed its connection (it stopped); a listener that took its port gets no key", async () => {
    const owner = plainServer();
    const t = createTransport({ timeoutMs: 2000 });
    expect((await t.fetch(get(`${owner.url}/a`))).status).toBe(200);
    const port = owner.server.port;
    owner.server.stop(true);
    // No request failed: the close alone is what the transport sees before the next request.
    const taker = plainServer(port);
    const e = await t.fetch(get(`${owner.url}/b`)).then(
      () => null,
      (x) => x,
    );
    expect(e).toBeInstanceOf(CredentialWithheldError);
    expect((e as Error).message).toContain(
      `the server at ${owner.url} closed the connection this command sends its key or token on`,
    );
    expect(taker.seen.filter((a) => a !== null)).toEqual([]);
    // Without a credential it still goes.
    expect((await t.fetch(new Request(`${owner.url}/healthz`))).status).toBe(200);
    expect(taker.seen).toEqual([null]);
  });

  test("over plain http, a server with no proof that keeps its connections gets every request on them, concurrent ones too", async () => {
    const connections = new Set<number>();
    const counted = Bun.serve({
      hostname: "127.0.0.1",
      port: 0,
      fetch(req, server) {
        connections.add(server.requestIP(req)?.port ?? 0);
        return Response.json({ authorization: req.headers.get("authorization") });
      },
    });
    stops.push(() => counted.stop(true));
    const url = `http://127.0.0.1:${counted.port}`;
    const t = createTransport({ timeoutMs: 2000 });
    for (let i = 0; i < 3; i++)
      expect(await (await t.fetch(get(`${url}/a`))).json()).toEqual({ authorization: "Bearer ext_k" });
    // The first connection (its answer to the challenge gave no proof) carries them all.
    expect(connections.size).toBe(1);
    const answers = await Promise.all([1, 2, 3].map(() => t.fetch(get(`${url}/b`)).then((r) => r.json())));
    expect(answers).toEqual([1, 2, 3].map(() => ({ authorization: "Bearer ext_k" })));
    expect((await t.fetch(get(`${url}/c`))).status).toBe(200);
    // Concurrent ones wait their turn on it: no new connection carries a key.
    expect(connections.size).toBe(1);
  });

  test("over plain http, a server with no proof that closes its connection after each answer gets no key on another", async () => {
    let requests = 0;
    const { url } = await rawServer((_head, socket) => {
      requests++;
      socket.end(
        "HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{}",
      );
    });
    const t = createTransport({ timeoutMs: 2000 });
    // Its answer to the challenge closed the first connection: no key goes to it at all.
    const e = await t.fetch(get(`${url}/a`)).then(
      () => null,
      (x) => x,
    );
    expect(e).toBeInstanceOf(CredentialWithheldError);
    expect(requests).toBe(1);
  });

  test("over plain http, a server with no proof that closed only its listener: concurrent keys and an upload stay on the one kept connection; a listener that took its port gets none", async () => {
    const owner = await keepAliveServer();
    stops.push(owner.stop);
    const t = createTransport({ timeoutMs: 5000 });
    expect(await (await t.fetch(get(`${owner.url}/a`))).json()).toEqual({ status: "ok" });
    // It stops accepting but keeps the connection it has (no close for the transport to see); another takes the port.
    owner.closeListener();
    const taker = await keepAliveServer(owner.port);
    stops.push(taker.stop);
    const upload = new Request(`${owner.url}/developer/v1/extensions/ext_1/versions`, {
      method: "POST",
      headers: { authorization: "Bearer ext_k", "content-length": "1000" },
      body: new Blob([new Uint8Array(1000)]).stream(),
      duplex: "half",
    } as RequestInit);
    // Each answer read as it comes: the next request waits for the connection until the answer before it is read.
    const answers = await Promise.all(
      [get(`${owner.url}/b`), get(`${owner.url}/c`), upload].map((r) => t.fetch(r).then((a) => a.json())),
    );
    expect(answers).toEqual([1, 2, 3].map(() => ({ status: "ok" })));
    expect(taker.seen.filter((r) => r.authorization !== null)).toEqual([]);
    // All on the kept connection, one after another.
    expect(owner.accepted).toBe(1);
    expect(
      owner.seen
        .filter((r) => r.authorization === "Bearer ext_k")
        .map((r) => r.bodyBytes)
        .sort(),
    ).toEqual([0, 0, 0, 1000]);
    // Once it closes, no key goes anywhere; a request without one still goes (to whoever is there now).
    owner.dropConnections();
    const e = await t.fetch(get(`${owner.url}/d`)).then(
      () => null,
      (x) => x,
    );
    expect(e).toBeInstanceOf(CredentialWithheldError);
    expect((await t.fetch(new Request(`${owner.url}/healthz`))).status).toBe(200);
    expect(taker.seen.filter((r) => r.authorization !== null)).toEqual([]);
    expect(taker.seen.map((r) => r.path)).toContain("/healthz");
  });

  test("over plain http, a server with no proof: a request with a key waits its turn on the one connection, and says so when the wait runs out", async () => {
    const owner = await keepAliveServer();
    stops.push(owner.stop);
    const t = createTransport({ timeoutMs: 300 });
    // Its answer is never read: the connection stays this request's.
    expect((await t.fetch(get(`${owner.url}/a`))).status).toBe(200);
    const e = await t.fetch(get(`${owner.url}/b`)).then(
      () => null,
      (x) => x,
    );
    expect((e as Error).message).toBe(
      `GET /b waited 0.3 s for the requests before it: with no admin token to prove ${owner.url} by, this command sends a key or token to it on one connection only, one request at a time (EXT_REQUEST_TIMEOUT sets the wait, in seconds)`,
    );
    expect(owner.seen.map((r) => r.path)).toEqual([expect.stringMatching(/^\/healthz\?challenge=/), "/a"]);
    // Without a key, another connection.
    expect((await t.fetch(new Request(`${owner.url}/healthz`))).status).toBe(200);
    expect(owner.accepted).toBe(2);
  });

  test("over plain http, a server with no proof gets no key again once a connection to it failed", async () => {
    const s = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: () => Response.json({ ok: true }) });
    const url = `http://127.0.0.1:${s.port}`;
    const t = createTransport({ timeoutMs: 2000 });
    expect((await t.fetch(get(`${url}/a`))).status).toBe(200);
    const port = s.port;
    s.stop(true);
    await t.fetch(get(`${url}/b`)).then(
      () => expect.unreachable(),
      () => undefined,
    );
    const back = Bun.serve({ hostname: "127.0.0.1", port, fetch: () => Response.json({ ok: true }) });
    stops.push(() => back.stop(true));
    const e = await t.fetch(get(`${url}/c`)).then(
      () => null,
      (x) => x,
    );
    expect(e).toBeInstanceOf(CredentialWithheldError);
    // Without a credential it still goes.
    expect((await t.fetch(new Request(`${url}/healthz`))).status).toBe(200);
  });
});
