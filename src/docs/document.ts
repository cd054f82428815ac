/**
 * The OpenAPI document without a server: the app is built on a throwaway in-memory runtime and asked for
 * /openapi.json in process (no socket), so `ext openapi` prints exactly what a running emulator serves.
 */
import { createApp } from "../app";
import { parseServerConfig } from "../config";
import { createRuntime } from "../runtime";
import { OPENAPI_PATH } from "./openapi";

export async function openApiDocument(): Promise<Record<string, unknown>> {
  // No environment: the document does not depend on how this machine would run a server.
  const runtime = createRuntime(parseServerConfig({ memory: true, logLevel: "silent" }, {}));
  try {
    const res = await createApp(runtime).handle(new Request(`http://localhost${OPENAPI_PATH}`));
    if (res.status !== 200)
      throw new Error(`the OpenAPI document could not be built (${res.status}): ${await res.text()}`);
    return (await res.json()) as Record<string, unknown>;
  } finally {
    runtime.close();
  }
}
