/**
 * The physical ceiling: a bare Bun.serve answering the same fixed JSON bytes the emulator's list returns,
 * with no routing, no auth, no database. `bun bench/ceiling.ts <port> <body-file>`.
 */
import { readFileSync } from "node:fs";

const [port, bodyFile] = process.argv.slice(2);
const body = readFileSync(bodyFile!);
const headers = { "content-type": "application/json;charset=utf-8" };

Bun.serve({
  hostname: "127.0.0.1",
  port: Number(port),
  reusePort: false,
  fetch: () => new Response(body, { headers }),
});
process.on("SIGTERM", () => process.exit(0));
