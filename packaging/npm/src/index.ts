/**
 * ext-emulator for Node ≥ 20 (no Bun): start the `ext` emulator as a child process and drive it through the
 * same `Emulator` interface (client/emulator.ts) as the in-process Bun `startEmulator()` of the repository.
 * Bundled into index.cjs by `npm run package`; index.mjs re-exports it, so both module systems share one set
 * of classes.
 */
export type * from "../../../client/emulator";
/** The fixture a test writes: fields with a default are optional. */
export type { FixtureInput as Fixture } from "../../../client/emulator";
export {
  type AdminClient,
  ApiCallError,
  /** The former name of ApiCallError, kept for existing `instanceof` checks. */
  ApiCallError as ControlPlaneError,
  type ApiClient,
  createAdminClient,
  createApiClient,
  readEvents,
  unwrap,
} from "../../../client/index";
export type * from "../../../client/models";
export { BinaryNotFoundError, binaryPath } from "../lib/binary.cjs";
export {
  type ConnectEmulatorOptions,
  connectEmulator,
  type Emulator,
  type StartEmulatorOptions,
  startEmulator,
} from "./emulator";
export { StartEmulatorError } from "./errors";
