/**
 * readEvents, the one SSE reader, on streams cut at awkward places: CRLF and CR line ends, a frame split
 * across chunks (even between "\r" and "\n"), several data lines, comments, events without data, an
 * oversized frame, a refused response.
 */
import { expect, test } from "bun:test";
import { ApiCallError, readEvents } from "../../client";

function streamed(...chunks: string[]): Response {
  const encoder = new TextEncoder();
  let i = 0;
  const body = new ReadableStream<Uint8Array>({
    pull(controller) {
      if (i < chunks.length) controller.enqueue(encoder.encode(chunks[i++]));
      else controller.close();
    },
  });
  return new Response(body, { headers: { "content-type": "text/event-stream" } });
}

async function all(response: Response, maxEventChars?: number): Promise<unknown[]> {
  const out: unknown[] = [];
  for await (const e of readEvents(response, maxEventChars ? { maxEventChars } : {})) out.push(e);
  return out;
}

test("frames split anywhere, with any line end, come out whole and in order", async () => {
  const events = await all(
    streamed(
      ": keep-alive\n\nid: 1\nevent: request\nda",
      'ta: {"n":1}\r',
      "\n\r\n",
      'data:{"n":2}\r\rdata: {"n":',
      "3}\n\n",
    ),
  );
  expect(events).toEqual([{ n: 1 }, { n: 2 }, { n: 3 }]);
  // A "\r" at the end of a chunk followed by "\n" is one line end, not a line end and an empty line.
  expect(await all(streamed('data: ["x",\r', '\ndata: "y"]\r\n\r\n'))).toEqual([["x", "y"]]);
});

test("several data lines are one value joined by newlines; events without data are skipped", async () => {
  expect(await all(streamed('event: ping\n\ndata: ["a",\ndata: "b"]\n\n'))).toEqual([["a", "b"]]);
});

test("a frame longer than the cap ends the stream with an error instead of growing", async () => {
  const huge = `data: "${"x".repeat(5000)}`;
  await expect(all(streamed(huge.slice(0, 2000), huge.slice(2000)), 1000)).rejects.toThrow("longer than 1000");
  await expect(all(streamed(`${huge}"\n\n`), 1000)).rejects.toThrow("longer than 1000");
});

test("a refused response throws its envelope as an ApiCallError", async () => {
  const refused = new Response(JSON.stringify({ error: { code: "unauthorized", message: "No key", status: 401 } }), {
    status: 401,
  });
  const error = await all(refused).catch((e: unknown) => e);
  expect(error).toBeInstanceOf(ApiCallError);
  expect(error).toMatchObject({ status: 401, code: "unauthorized", message: "No key" });
});
