/**
 * The shape of untrusted JSON text, measured on its raw bytes before anything parses it: every JSON body
 * and the bundle manifest are refused past one nesting bound, so no input can reach code (a validator, an
 * error formatter) whose cost grows with its depth.
 */

/** The deepest nesting any JSON input may have: far above every body and manifest the API defines. */
export const JSON_DEPTH_MAX = 32;

/**
 * How many JSON items (containers and list elements) the text holds, and how deep it nests. Strings are
 * skipped: `"` and `\` never occur inside a multi-byte UTF-8 sequence, so bytes are enough.
 */
export function jsonSize(bytes: Uint8Array): { items: number; depth: number } {
  let items = 0;
  let depth = 0;
  let maxDepth = 0;
  let inString = false;
  for (let i = 0; i < bytes.length; i++) {
    const c = bytes[i];
    if (inString) {
      if (c === 0x5c) i++;
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x7b || c === 0x5b) {
      items++;
      if (++depth > maxDepth) maxDepth = depth;
    } else if (c === 0x7d || c === 0x5d) depth--;
    else if (c === 0x2c) items++;
  }
  return { items, depth: maxDepth };
}
