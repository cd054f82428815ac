// Starts one emulator before any test file. Test files run in their own module registry (and, with more
// than one worker, in other processes): they find the emulator through EXT_* environment variables.
const { startEmulator } = require("ext-emulator");

module.exports = async function globalSetup() {
  const emulator = await startEmulator();
  Object.assign(process.env, emulator.env);
  // Read by global-teardown.js (jest runs both in the same context).
  globalThis.extEmulator = emulator;
};
