/** @type {import('jest').Config} */
module.exports = {
  testEnvironment: "node",
  // One emulator for the whole run...
  globalSetup: "./global-setup.js",
  globalTeardown: "./global-teardown.js",
  // ...reset before each test: files running at the same time would wipe each other's data.
  // For parallel files, start one emulator per file instead (see ../node-test).
  maxWorkers: 1,
};
