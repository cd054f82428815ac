/** Reads the fixture a command is given: a file path, or `demo` for the embedded demo fixture. */

import { type Fixture, type FixtureSource, resolveFixture, resolveFixtureSource } from "../../../server";
import { UsageError } from "../../calls/usage-error";

export function readFixtureArgument(arg: string): Fixture {
  try {
    return resolveFixture(arg);
  } catch (e) {
    // An unreadable or invalid fixture is the user's local input: a usage error (exit 2), not a runtime one.
    throw new UsageError((e as Error).message, false);
  }
}

/** A fixture file, an export directory (its bundles beside it), or `demo`. */
export function readFixtureSource(arg: string): FixtureSource {
  try {
    return resolveFixtureSource(arg);
  } catch (e) {
    throw new UsageError((e as Error).message, false);
  }
}
