import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    // One emulator for the whole run (global-setup.ts)...
    globalSetup: ["./global-setup.ts"],
    // ...reset before each test: files running at the same time would wipe each other's data.
    // For parallel files, start one emulator per file instead (see ../node-test).
    fileParallelism: false,
  },
});
