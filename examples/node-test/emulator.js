// One emulator per test file: node --test runs each file in its own process, at the same time as the
// others, so each file starts its own (a free port, its own in-memory data) and resets it before each test.

import { after, before, beforeEach } from "node:test";
import { fileURLToPath } from "node:url";
import { startEmulator } from "ext-emulator";

/** A compiled extension as `ext deploy` takes it: manifest.json at its root. */
export const myExtension = fileURLToPath(new URL("./my-extension", import.meta.url));

/** Call at the top of a test file; `emulator.current` is set once `before` has run. */
export function useEmulator(options) {
  const emulator = { current: undefined };
  before(async () => {
    emulator.current = await startEmulator(options);
  });
  beforeEach(() => emulator.current.reset());
  after(() => emulator.current?.stop());
  return emulator;
}
