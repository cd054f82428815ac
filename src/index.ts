/** Programmatic entry point of the package. */
export { unwrap } from "../client/index";
export { type App, createApp } from "./app";
export { parseServerConfig, type ServerConfig } from "./config";
export {
  ApiCallError,
  type ConnectEmulatorOptions,
  type CreatedExtension,
  connectEmulator,
  type DeployResult,
  type Emulator,
  type EmulatorConnection,
  type EmulatorSnapshot,
  type Extension,
  type Fixture,
  type LimitKey,
  type LimitValuesInput,
  StartEmulatorError,
  type StartEmulatorOptions,
  type SubmittedDeploy,
  startEmulator,
} from "./programmatic";
export { createRuntime, type Runtime } from "./runtime";
export { type RunningEmulator, startServer } from "./server";
