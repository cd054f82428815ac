/** Reads the fixture a command is given: a file path, or `demo` for the embedded demo fixture. */
import { existsSync } from "node:fs";
import { demoFixture, isDemoSeed } from "../../src/fixtures/demo";
import type { Fixture } from "../../src/fixtures/model";
import { FixtureError } from "../../src/fixtures/validate";
import { loadFixtureFile } from "../../src/runtime";
import { UsageError } from "./runner";

export function readFixtureArgument(arg: string): Fixture {
  if (isDemoSeed(arg, existsSync)) return demoFixture();
  try {
    return loadFixtureFile(arg);
  } catch (e) {
    // An unreadable or invalid fixture is the user's local input: a usage error (exit 2), not a runtime one.
    if (e instanceof FixtureError) throw new UsageError(e.message);
    throw new UsageError((e as Error).message);
  }
}
