/** Programmatic entry point of the package. */
export { createApp, type App } from "./app";
export { parseServerConfig, type ServerConfig } from "./config";
export { createRuntime, type Runtime } from "./runtime";
export { startServer, type RunningEmulator } from "./server";
export { startEmulator, StartEmulatorError, type Emulator, type StartEmulatorOptions } from "./programmatic";
export type { Fixture } from "./fixtures/model";
