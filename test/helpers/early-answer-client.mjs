// Sends each request of a JSON list (argv[2]: a file) with Node's own fetch (undici), one after the other,
// and prints one JSON line: per request its status, the Connection header and the body, or the error the
// client threw (EPIPE, ECONNRESET…). Plain JavaScript, run by `node`: the client under test is Node's.
import { readFileSync } from "node:fs";

const requests = JSON.parse(readFileSync(process.argv[2], "utf8"));
const results = [];
for (const r of requests) {
  try {
    const res = await fetch(r.url, { method: r.method, headers: r.headers, body: readFileSync(r.bodyFile) });
    results.push({ status: res.status, connection: res.headers.get("connection"), body: await res.text() });
  } catch (e) {
    results.push({ error: `${e.message}${e.cause ? ` (${e.cause.code ?? e.cause.message})` : ""}` });
  }
}
console.log(JSON.stringify(results));
