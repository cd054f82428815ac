/** Programmatic entry point of the package. */
export { unwrap } from "../client/index";
export { type App, createApp } from "./app";
export { parseServerConfig, type ServerConfig } from "./config";
export {
  ApiCallError,
  type Emulator,
  StartEmulatorError,
  type StartEmulatorOptions,
  startEmulator,
} from "./programmatic";
export { createRuntime, type Runtime } from "./runtime";
export type { Fixture } from "./seed/model";
export { type RunningEmulator, startServer } from "./server";
