/**
 * manifest.json: its schema (also published as docs/manifest.schema.json) and the checks that need the
 * rest of the archive — sound files present, of a supported format, within the size limits — and the
 * resolved count limits.
 */
import { Value } from "@sinclair/typebox/value";
import type { Static } from "elysia";
import { jsonSize } from "../../common/json/json-shape";
import type { ErrorDetail } from "../errors/api-error";
import { pointerToPath } from "../errors/value-errors";
import { t } from "../schema/schema";
import { asStringError } from "../schema/text-length";
import { AUDIO_FORMATS, audioFormatOfName, matchesMagic } from "./audio-formats";
import { type BundleLimits, READ_CAPS } from "./bundle-limits";
import type { ProblemList } from "./problem-list";

export const ManifestSound = t.Object(
  {
    name: t.String({ minLength: 1, maxLength: 200, description: "Name the extension uses to play the sound" }),
    file: t.String({
      minLength: 1,
      maxLength: 1024,
      description: "Path of the audio file inside the archive, e.g. sounds/ding.mp3",
    }),
  },
  { additionalProperties: true },
);

// Lengths in characters, as for every other string (`t` of server/schema/schema.ts).
export const Manifest = t.Object(
  {
    sounds: t.Optional(t.Array(ManifestSound, { description: `Bundled sounds (${AUDIO_FORMATS.join(", ")})` })),
    actions: t.Optional(t.Array(t.Unknown(), { description: "Server-function actions; only their number is checked" })),
    allowHosts: t.Optional(
      t.Array(t.String({ minLength: 1, maxLength: 253 }), { description: "Egress hosts the actions may fetch" }),
    ),
  },
  {
    additionalProperties: true,
    title: "Extension bundle manifest",
    description: "manifest.json at the root of the bundle archive. Other fields are kept, not checked.",
  },
);
export type Manifest = Static<typeof Manifest>;

/** What the archive walk learned about one regular file. */
export interface FileFacts {
  size: number;
  /** The first bytes (up to SNIFF_BYTES), for format sniffing. */
  head: Uint8Array;
}

export const MANIFEST_PATH = "manifest.json";

/**
 * Archive path as extraction would resolve it: empty and "." segments dropped, "\\" read as a separator. So
 * ".//manifest.json" and "layer/./a.js" are the files "manifest.json" and "layer/a.js" — and a second entry
 * that resolves to the same file is reported as a duplicate instead of slipping past inspection.
 */
export function normaliseArchivePath(path: string): string {
  return path
    .split(/[\\/]/)
    .filter((seg) => seg !== "" && seg !== ".")
    .join("/");
}

const mb = (bytes: number) => `${(bytes / (1024 * 1024)).toFixed(1)} MB`;

/** `what` is [one, many]: "1 sound", "2 sounds". */
function countProblem(
  field: string,
  limit: string,
  max: number,
  current: number,
  what: readonly [string, string],
): ErrorDetail {
  return {
    path: MANIFEST_PATH,
    field,
    message: `${current} ${current === 1 ? what[0] : what[1]}; the limit is ${max} (${limit})`,
    limit,
    max,
    current,
  };
}

/**
 * manifest.json's bytes as the walk kept them; "reported" when the walk already said why there are none to
 * check (over the cap, or a directory by that name), so it is not also reported missing.
 */
export type ManifestInput = Buffer | "reported" | null;

/**
 * Parses and checks the manifest against the archive's files and the limits. Adds problems and warnings;
 * returns the parsed manifest (or null) and the number of sounds it declares. Stops looking once the
 * problem list overflows.
 */
export function checkManifest(
  input: ManifestInput,
  files: ReadonlyMap<string, FileFacts>,
  limits: BundleLimits,
  problems: ProblemList,
  warnings: string[],
): { manifest: unknown; soundCount: number } {
  if (input === "reported") return { manifest: null, soundCount: 0 };
  if (!input) {
    problems.push({ path: MANIFEST_PATH, message: "manifest.json is missing at the root of the archive" });
    return { manifest: null, soundCount: 0 };
  }
  const size = jsonSize(input);
  if (size.items > READ_CAPS.maxManifestItems || size.depth > READ_CAPS.maxManifestDepth) {
    const what =
      size.depth > READ_CAPS.maxManifestDepth
        ? `nests deeper than ${READ_CAPS.maxManifestDepth} levels`
        : `holds more than ${READ_CAPS.maxManifestItems} JSON values`;
    problems.push({ path: MANIFEST_PATH, message: `manifest.json ${what}; not checked further` });
    return { manifest: null, soundCount: 0 };
  }
  let data: unknown;
  try {
    // A "__proto__" key is harmless to JSON.parse but not to every later merge of the object: refused.
    let proto = false;
    data = JSON.parse(input.toString("utf8"), (key, value: unknown) => {
      proto ||= key === "__proto__";
      return value;
    });
    if (proto) {
      problems.push({ path: MANIFEST_PATH, message: 'manifest.json has a "__proto__" key; not accepted' });
      return { manifest: null, soundCount: 0 };
    }
  } catch (e) {
    problems.push({ path: MANIFEST_PATH, message: `manifest.json is not valid JSON: ${(e as Error).message}` });
    return { manifest: null, soundCount: 0 };
  }
  // The errors come from a generator: stopping early never builds the rest.
  for (const error of Value.Errors(Manifest, data)) {
    const e = asStringError(error);
    problems.push({
      path: MANIFEST_PATH,
      field: pointerToPath(e.path),
      message: `${pointerToPath(e.path)}: ${e.message}`,
    });
    if (problems.overflowed) break;
  }
  if (typeof data !== "object" || data === null || Array.isArray(data)) return { manifest: data, soundCount: 0 };

  const m = data as Record<string, unknown>;
  const sounds = Array.isArray(m.sounds) ? m.sounds : [];
  if (sounds.length > limits.max_sounds_in_manifest) {
    problems.push(
      countProblem("sounds", "max_sounds_in_manifest", limits.max_sounds_in_manifest, sounds.length, [
        "sound in the manifest",
        "sounds in the manifest",
      ]),
    );
  }
  if (sounds.length > limits.max_sounds_per_extension) {
    problems.push(
      countProblem("sounds", "max_sounds_per_extension", limits.max_sounds_per_extension, sounds.length, [
        "sound for this extension",
        "sounds for this extension",
      ]),
    );
  }
  if (Array.isArray(m.actions) && m.actions.length > limits.max_actions_per_extension) {
    problems.push(
      countProblem("actions", "max_actions_per_extension", limits.max_actions_per_extension, m.actions.length, [
        "action",
        "actions",
      ]),
    );
  }
  if (Array.isArray(m.allowHosts) && m.allowHosts.length > limits.max_allow_hosts) {
    problems.push(
      countProblem("allowHosts", "max_allow_hosts", limits.max_allow_hosts, m.allowHosts.length, [
        "allowHosts entry",
        "allowHosts entries",
      ]),
    );
  }

  sounds.forEach((sound, i) => {
    if (problems.overflowed) return;
    const file = (sound as { file?: unknown } | null)?.file;
    if (typeof file !== "string" || file.length === 0) return; // already reported by the shape check
    const field = `sounds[${i}].file`;
    // Resolved as extraction on Linux would: "\\" is part of a name there, and a file never ends in "/".
    if (file.includes("\\") || file.endsWith("/")) {
      problems.push({
        path: file,
        field,
        message: `${file}: not a file path inside the archive (folders are separated by /, and a file path does not end in /)`,
      });
      return;
    }
    const path = normaliseArchivePath(file);
    const facts = files.get(path);
    if (!facts) {
      problems.push({ path: file, field, message: `${file}: sound file is missing from the archive` });
      return;
    }
    const format = audioFormatOfName(path);
    if (!format) {
      problems.push({
        path,
        field,
        message: `${path}: not a supported sound format (by extension); use one of ${AUDIO_FORMATS.join(", ")}`,
      });
    } else if (!matchesMagic(format, facts.head)) {
      problems.push({
        path,
        field,
        message: `${path}: the content is not ${format} audio (its first bytes do not match the format)`,
      });
    }
    if (facts.size > limits.sound_file_bytes) {
      problems.push({
        path,
        field,
        message: `${path}: ${mb(facts.size)} is over the sound file limit of ${mb(limits.sound_file_bytes)}`,
        limit: "sound_file_bytes",
        max: limits.sound_file_bytes,
        current: facts.size,
      });
    } else if (facts.size > limits.sound_warning_bytes) {
      warnings.push(`${path}: ${mb(facts.size)} is over the ${mb(limits.sound_warning_bytes)} sound warning threshold`);
    }
  });
  return { manifest: data, soundCount: sounds.length };
}
