/**
 * Where the dashboard's files come from. The compiled binary carries them as one embedded file,
 * `dashboard.assets` (JSON of DashboardAssets), which scripts/build.ts builds and passes to
 * `bun build --compile` as an extra input, readable through `Bun.embeddedFiles`. From a checkout there is
 * no such file, so the first request builds ui/ into memory: `npm start` and in-process tests
 * need no build step, and no generated file lives in the source tree.
 */
import { resolve } from "node:path";
import type { DashboardAssets } from "./build";

export const EMBEDDED_NAME = "dashboard.assets";
const ROOT = resolve(import.meta.dir, "../..");

let loading: Promise<DashboardAssets> | null = null;

function embedded(): Blob | undefined {
  // Named "dashboard-<hash>.assets" by the bundler.
  return (Bun.embeddedFiles as (Blob & { name: string })[]).find(
    (f) => f.name.startsWith("dashboard") && f.name.endsWith(".assets"),
  );
}

export function dashboardAssets(): Promise<DashboardAssets> {
  if (!loading) {
    const file = embedded();
    loading = file
      ? file.text().then((text) => JSON.parse(text) as DashboardAssets)
      : import("./build").then((m) => m.buildDashboard(ROOT));
    // A failed build is retried on the next request rather than remembered.
    loading.catch(() => (loading = null));
  }
  return loading;
}
