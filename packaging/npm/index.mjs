// `import … from "ext-emulator"`: one implementation (index.cjs, bundled from src/) for both module systems,
// so a test suite that loads the package both ways still shares one set of classes (`instanceof` works
// everywhere).
import cjs from "./index.cjs";

export const {
  startEmulator,
  connectEmulator,
  binaryPath,
  createApiClient,
  createAdminClient,
  readEvents,
  unwrap,
  ApiCallError,
  StartEmulatorError,
  ControlPlaneError,
  BinaryNotFoundError,
} = cjs;
