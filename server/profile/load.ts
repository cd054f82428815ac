/**
 * Profiles on disk: read with the safe reader (no link followed, a regular file, a size and nesting cap),
 * parsed, checked and compiled against the developer API's answers; written through the private writer.
 */

import { writePrivateFile } from "../../common/files/private-file";
import { ReadRefusal } from "../../common/files/safe-read";
import { readJsonFileText } from "../../common/json/json-reader";
import { ANSWER_SHAPES } from "./answer-shapes.generated";
import { type CompiledProfile, compileProfile, ProfileError } from "./compile";
import { PROFILE_FILE_MAX_BYTES, type Profile } from "./model";
import { checkProfile, parseProfile } from "./parse";

export interface LoadedProfile {
  compiled: CompiledProfile;
  /** Where it came from, in words: a file path, "startEmulator", "the seed's export …". */
  source: string;
  /**
   * The fixture file (or export folder) that brought it, when a seed's `profile` did: a start says so loudly,
   * since whoever wrote that file chose how the emulator answers.
   */
  seed?: string;
}

/** Compiles a profile document against the developer API's answers. */
export function compile(profile: Profile): CompiledProfile {
  return compileProfile(profile, ANSWER_SHAPES);
}

/** The profile file at `path`, checked and compiled; a ProfileError says what is wrong with it. */
export function readProfileFile(path: string): LoadedProfile {
  let text: string;
  try {
    text = readJsonFileText(path, PROFILE_FILE_MAX_BYTES);
  } catch (e) {
    if (e instanceof ReadRefusal) throw new ProfileError(e.message);
    throw e;
  }
  return { compiled: compile(parseProfile(text)), source: path };
}

/** A profile given as a value (startEmulator's option, a fixture's `profile`). */
export function profileFromValue(value: unknown, source: string): LoadedProfile {
  return { compiled: compile(checkProfile(structuredClone(value))), source };
}

/** The text a profile is saved as: stable key order, two-space indent, a final newline. */
export function profileText(profile: Profile): string {
  return `${JSON.stringify(profile, null, 2)}\n`;
}

/** Saves a profile (0600, whole or not at all); compiled first, so a saved profile always loads. */
export function writeProfileFile(path: string, profile: Profile): void {
  compile(profile);
  writePrivateFile(path, profileText(profile));
}
