/**
 * Which answers leave the app at once: for each request below, whether `app.fetch` gave a Response rather than a
 * Promise (server/http/pre-routing.ts says why it matters). Imported by test/http/sync-answers.test.ts, and also
 * bundled there with the binary's bundling flags and run, which prints the same as JSON: Elysia reads the source
 * text of the bundle's functions, minified.
 */
import { demoApp, listRequest } from "./in-process-app";

export const SYNC_REQUESTS = { "GET /developer/v1/extensions": listRequest };

export async function syncAnswers(): Promise<Record<string, { sync: boolean; status: number }>> {
  const { runtime, app } = demoApp();
  try {
    const out: Record<string, { sync: boolean; status: number }> = {};
    for (const [name, make] of Object.entries(SYNC_REQUESTS)) {
      // The first answer composes the route; the second is the one every later request gets.
      await (await app.fetch(make())).text();
      const answer = app.fetch(make());
      const response = await answer;
      await response.text();
      out[name] = { sync: !(answer instanceof Promise), status: response.status };
    }
    return out;
  } finally {
    runtime.close();
  }
}

if (import.meta.main) void syncAnswers().then((out) => console.log(JSON.stringify(out)));
