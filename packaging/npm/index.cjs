// @ts-check
/** `require("ext-emulator")`: the Node test helper (ESM users get the same through index.mjs). */
"use strict";
const { startEmulator, connectEmulator, StartEmulatorError, ControlPlaneError } = require("./lib/emulator.cjs");
const { binaryPath, BinaryNotFoundError } = require("./lib/binary.cjs");

module.exports = {
  startEmulator,
  connectEmulator,
  binaryPath,
  StartEmulatorError,
  ControlPlaneError,
  BinaryNotFoundError,
};
