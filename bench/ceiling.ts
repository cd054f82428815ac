/**
 * The physical ceiling: a bare Bun.serve answering, for each route the bench measures, the very status and
 * bytes the emulator answered it (captured just before), with no framework, no auth, no database: a map
 * lookup by method and path. `bun bench/ceiling.ts <port> <responses.json>`, where the file holds
 * `{"GET /developer/v1/extensions": {"status": 200, "body": "..."}, ...}`.
 */
import { readFileSync } from "node:fs";

export interface CeilingResponse {
  status: number;
  body: string;
}

const [port, responsesFile] = process.argv.slice(2);
if (import.meta.main) {
  const table = JSON.parse(readFileSync(responsesFile!, "utf8")) as Record<string, CeilingResponse>;
  const headers = { "content-type": "application/json;charset=utf-8" };
  const answers = new Map(
    Object.entries(table).map(([route, r]) => [
      route,
      { body: r.body === "" ? null : Buffer.from(r.body), init: { status: r.status, headers } },
    ]),
  );
  const notFound = { body: Buffer.from('{"error":{"code":"not_found"}}'), init: { status: 404, headers } };

  Bun.serve({
    hostname: "127.0.0.1",
    port: Number(port),
    reusePort: false,
    fetch(request) {
      const url = request.url;
      const start = url.indexOf("/", url.indexOf("//") + 2);
      const answer = answers.get(`${request.method} ${url.slice(start)}`) ?? notFound;
      return new Response(answer.body, answer.init);
    },
  });
  process.on("SIGTERM", () => process.exit(0));
}
