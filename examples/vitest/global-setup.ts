// Starts one emulator before any test file and stops it after the last one. Test files run in other
// processes: they get the emulator's addresses and keys through vitest's provide/inject.
import { type EmulatorEnv, startEmulator } from "ext-emulator";
import type { TestProject } from "vitest/node";

declare module "vitest" {
  export interface ProvidedContext {
    emulator: EmulatorEnv;
  }
}

export default async function setup(project: TestProject) {
  const emulator = await startEmulator();
  project.provide("emulator", emulator.env);
  return () => emulator.stop();
}
