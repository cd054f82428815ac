#!/usr/bin/env bun
/** `ext`: the emulator server and its command-line tool, one executable. Each command lives in cli/commands/. */
import { defineCommand, runMain } from "citty";
import pkg from "../package.json" with { type: "json" };

export const main = defineCommand({
  meta: { name: "ext", version: pkg.version, description: "Local emulator of the Developer REST API for extensions, and its CLI" },
  subCommands: {
    serve: () => import("./commands/serve").then((m) => m.default),
  },
});

if (import.meta.main) {
  await runMain(main, { rawArgs: process.argv.slice(2) });
}
