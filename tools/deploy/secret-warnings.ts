/** The warnings `ext deploy` and the Bun helper's deploy() give about secret-looking files of a packed folder. */
import { printable } from "../../common/text/printable";
import type { PackResult } from "./pack";
import { EXTIGNORE } from "./pack-rules";

/** Where secret values belong, said once for all the secret-looking files the rules left out (or let in). */
export function secretWarnings(packed: PackResult): string[] {
  const out: string[] = [];
  const { excluded, included } = packed.secretLike;
  if (excluded.length > 0) {
    out.push(
      `left out ${excluded.length === 1 ? "a file that looks like a secret" : `${excluded.length} files that look like secrets`}: ${excluded.map(printable).join(", ")}. Secret values do not belong in a bundle: store each with \`ext secrets set NAME\` (the value read from standard input)`,
    );
  }
  for (const path of included)
    out.push(
      `${printable(path)} looks like a secret and is packed (re-included by ${EXTIGNORE}); everything in a bundle is public`,
    );
  return out;
}
