#!/usr/bin/env bun
/** `ext`: the emulator server and its command-line tool, one executable. Each command lives in tools/cli/commands/. */
import { defineCommand } from "citty";
import { markStartup } from "../../common/startup-trace";
import pkg from "../../package.json" with { type: "json" };
import { runCli } from "./lib/runner";

export const main = defineCommand({
  meta: {
    name: "ext",
    version: pkg.version,
    description: "Local emulator of the Developer REST API for extensions, and its CLI",
  },
  subCommands: {
    serve: () => import("./commands/serve").then((m) => m.default),
    deploy: () => import("./commands/deploy").then((m) => m.default),
    seed: () => import("./commands/seed").then((m) => m.default),
    export: () => import("./commands/export").then((m) => m.default),
    exec: () => import("./commands/exec").then((m) => m.default),
    secrets: () => import("./commands/secrets").then((m) => m.default),
    openapi: () => import("./commands/openapi").then((m) => m.default),
    logs: () => import("./commands/logs").then((m) => m.default),
    health: () => import("./commands/health").then((m) => m.default),
    init: () => import("./commands/init").then((m) => m.default),
    extensions: () => import("./commands/extensions").then((m) => m.default),
    versions: () => import("./commands/versions").then((m) => m.default),
    installs: () => import("./commands/installs").then((m) => m.default),
    limits: () => import("./commands/limits").then((m) => m.default),
    conformance: () => import("./commands/conformance").then((m) => m.default),
    proxy: () => import("./commands/proxy").then((m) => m.default),
    dashboard: () => import("./commands/dashboard").then((m) => m.default),
    image: () => import("./commands/image").then((m) => m.default),
    keys: () => import("./commands/keys").then((m) => m.default),
  },
});

if (import.meta.main) {
  markStartup("CLI modules loaded");
  // Not citty's runMain: usage errors must exit 2, unknown flags must be refused (tools/cli/lib/runner.ts).
  // Not awaited at the top level: the binary is built as CommonJS (scripts/lib/compile.ts), which has none.
  void runCli(main, process.argv.slice(2));
}
