/**
 * The start-up floor: the smallest compiled Bun server that answers /healthz, built the way the emulator is
 * (`bun build --compile --bytecode`, bench/sections/cold-start.ts). `floor <port>`.
 */
const port = Number(process.argv[2]);
Bun.serve({
  hostname: "127.0.0.1",
  port,
  reusePort: false,
  fetch: () => Response.json({ status: "ok" }),
});
process.on("SIGTERM", () => process.exit(0));
