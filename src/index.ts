/** Programmatic entry point of the package. */
export { unwrap } from "../client/index";
export { type App, createApp } from "./app";
export { parseServerConfig, type ServerConfig } from "./config";
export type { Fixture } from "./fixtures/model";
export {
  ApiCallError,
  type CreatedExtension,
  type Emulator,
  type Extension,
  type LimitKey,
  type LimitValuesInput,
  StartEmulatorError,
  type StartEmulatorOptions,
  startEmulator,
} from "./programmatic";
export { createRuntime, type Runtime } from "./runtime";
export { type RunningEmulator, startServer } from "./server";
