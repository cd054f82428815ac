/**
 * `ext serve --profile FILE --explain`: what the profile changes, one line per entry naming both sides, and
 * where each was seen; nothing is served. A profile that does not load is said as a start would say it.
 */

import { printable } from "../../../common/text/printable";
import { evidenceWords, explainEntry, readProfileFile, type ServerConfig, type ServerFlags } from "../../../server";
import { EXIT, fail } from "../output";
import { describeStartupError } from "./startup-errors";

export function explainLines(config: ServerConfig, flags: ServerFlags): string[] {
  if (!config.profile) fail("--explain lists what a profile changes: give --profile FILE (or EXT_PROFILE)", EXIT.usage);
  let loaded: ReturnType<typeof readProfileFile>;
  try {
    loaded = readProfileFile(config.profile);
  } catch (e) {
    const known = describeStartupError(e, config, flags);
    if (!known) throw e;
    fail(known.message, known.exitCode);
  }
  const { profile } = loaded.compiled;
  const seen = [
    profile.target && `observed on ${printable(profile.target)}`,
    profile.observedAt && `at ${profile.observedAt}`,
  ]
    .filter(Boolean)
    .join(" ");
  const lines = [
    `profile ${printable(config.profile)}: ${profile.entries.length} ${profile.entries.length === 1 ? "entry" : "entries"}${seen ? `, ${seen}` : ""}`,
  ];
  if (profile.entries.length === 0) lines.push("  (no entries: every answer is the spec's)");
  profile.entries.forEach((e, i) => {
    lines.push(`  ${i + 1}. ${printable(explainEntry(e))}`);
    lines.push(`     seen: ${printable(evidenceWords(e))}`);
  });
  lines.push(
    "Everything else — every rule, every state change, the other operations and answers — is the spec's, as without a profile.",
  );
  return lines;
}
