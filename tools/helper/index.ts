/** Programmatic entry point of the package. */
export { unwrap } from "../../client/index";
export {
  type App,
  createApp,
  createRuntime,
  parseServerConfig,
  type RunningEmulator,
  type Runtime,
  type ServerConfig,
  startServer,
} from "../../server";
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
} from "./start-emulator";
