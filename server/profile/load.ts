/**
 * Profiles on disk: read with the safe reader (no link followed, a regular file, a size and nesting cap),
 * parsed, checked and compiled against the developer API's answers; written through the private writer.
 */

import type { Stats } from "node:fs";
import { writePrivateFile } from "../../common/files/private-file";
import { ReadRefusal } from "../../common/files/safe-read";
import { readJsonFileText } from "../../common/json/json-reader";
import { printable } from "../../common/text/printable";
import { answerShapes } from "./answer-shapes.generated";
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
  return compileProfile(profile, answerShapes());
}

/**
 * Whoever can write a profile chooses how the emulator answers. A file owned by another user (root aside), or one
 * every user may write, is refused before it is read: in a shared folder someone else could have put it there, or
 * change it after its owner read it. The check is on the opened file (no gap between it and the read).
 */
function refuseOthersFile(path: string): (stat: Stats) => boolean {
  const uid = process.getuid?.();
  return (stat) => {
    if (uid === undefined) return true; // no owners to compare (Windows)
    const why =
      stat.uid !== uid && stat.uid !== 0
        ? `is owned by another user (uid ${stat.uid})`
        : (stat.mode & 0o002) !== 0
          ? "can be written by every user"
          : null;
    if (why === null) return true;
    throw new ProfileError(
      `${printable(path)} ${why}: whoever can change a profile chooses how the emulator answers. Use a copy of your own that others cannot write (chmod o-w)`,
    );
  };
}

/** The profile file at `path`, checked and compiled; a ProfileError says what is wrong with it. */
export function readProfileFile(path: string): LoadedProfile {
  let text: string;
  try {
    text = readJsonFileText(path, PROFILE_FILE_MAX_BYTES, refuseOthersFile(path));
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
  writePrivateFile(path, profileText(profile), { what: "the profile" });
}
