// `import … from "ext-emulator"`: one implementation (index.cjs) for both module systems, so a test suite
// that loads the package both ways still shares one set of classes (`instanceof` works everywhere).
import cjs from "./index.cjs";

export const {
  startEmulator,
  connectEmulator,
  binaryPath,
  StartEmulatorError,
  ControlPlaneError,
  BinaryNotFoundError,
} = cjs;
