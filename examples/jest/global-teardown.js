module.exports = async function globalTeardown() {
  await globalThis.extEmulator.stop();
};
