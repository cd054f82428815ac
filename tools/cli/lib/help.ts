/**
 * `--help` text: citty's usage block plus an EXAMPLES section. Descriptions stay one line (they are also
 * the command list of `ext --help`); examples live here, one list per command.
 */
import { type CommandDef, renderUsage } from "citty";

// biome-ignore lint/suspicious/noExplicitAny: citty types a command by its own args; help and the runner take any command.
export type AnyCommand = CommandDef<any>;

export const EXAMPLES: Record<string, string[]> = {
  ext: [
    "ext serve",
    "ext init my-extension && ext extensions create --name 'My extension'",
    "ext deploy my-extension --extension ext_123 --version 1.0.0",
    "ext exec -- npm test",
    "ext <command> --help",
  ],
  serve: [
    "ext serve --seed demo",
    'dir=$(mktemp -d); ext serve --memory --port 0 --ready-file "$dir/ready.json"   (a private folder: the file holds the admin token)',
    'EXT_ADMIN_TOKEN="$TOKEN" ext serve --host 0.0.0.0 --no-rate-limits',
    "ext serve --profile platform.json --explain   (what the profile changes; then ext serve --profile platform.json)",
  ],
  deploy: [
    "EXT_API_KEY=ext_demo_0123456789abcdefghijklmnopqrstuv ext deploy ./dist --extension ext_123 --target local",
    "ext deploy ./dist --version 1.2.0 --changelog 'New sounds' --build 'npm run build' --wait",
    "ext deploy ./dist --dry-run --json",
    "EXT_API_KEY=… ext deploy ./dist --target https://api.example.com/developer/v1   (a key in a variable: a flag shows in `ps`)",
  ],
  export: [
    "ext export ./state",
    "ext export ./state --include-secret-values   (the ext serve found from this folder)",
    "ext serve --memory --seed ./state --export-on-exit ./state",
  ],
  seed: [
    "ext seed fixtures/demo.json --data-dir ./.ext-data",
    "ext seed demo --target local   (the ext serve found from this folder, verified)",
    "EXT_LOCAL_URL=http://127.0.0.1:5000/developer/v1 ext seed demo --target local",
    'EXT_ADMIN_TOKEN="$TOKEN" ext seed team.json --target https://emu.internal:4780 --json',
  ],
  secrets: [
    'ext secrets set API_TOKEN --extension ext_123 <<< "$API_TOKEN"',
    "ext secrets set API_TOKEN --extension ext_123   (a terminal: a hidden prompt)",
    "ext secrets list --extension ext_123 --json",
    "ext secrets delete API_TOKEN --extension ext_123 --target https://api.example.com/developer/v1",
  ],
  dashboard: [
    "ext dashboard   (the ext serve found from this folder, verified)",
    "ext dashboard --no-browser   (names the page to open in a browser by hand)",
    "ext dashboard --json",
    'EXT_ADMIN_TOKEN="$TOKEN" ext dashboard --target http://127.0.0.1:4780',
  ],
  health: ["ext health", "ext health --url http://127.0.0.1:4780", "EXT_PORT=5000 ext health --timeout 500"],
  image: ["npx ext image && docker build -t ext-emulator ext-image", "ext image build/ext-context"],
  keys: [
    'export EXT_API_KEY="$(ext keys create)"',
    "ext keys create --name ci --scopes extensions:read,versions:write --account acc_local",
    "ext keys list --json",
  ],
  openapi: [
    "ext openapi > openapi.json",
    "ext openapi --yaml > openapi.yaml",
    "ext openapi > openapi.json && npx openapi-typescript openapi.json -o api.d.ts",
  ],
  logs: [
    "ext logs",
    "ext logs --follow",
    'EXT_ADMIN_TOKEN="$TOKEN" ext logs --follow --json --limit 0 --target http://127.0.0.1:4780',
  ],
  init: ["ext init my-extension", "ext init my-extension --name 'Sound Board'"],
  extensions: [
    "ext extensions create --name 'Sound Board' --short-description 'Short sounds'",
    "ext extensions list --json",
    "ext extensions get ext_123",
    "ext extensions update ext_123 --visibility public",
    "ext extensions delete ext_123",
  ],
  versions: [
    "ext versions list --extension ext_123",
    "ext versions approve ver_123",
    "ext versions reject ver_123 --reason 'Sounds are clipped.'",
  ],
  installs: [
    "ext installs show --extension ext_123 --json",
    "ext installs add --extension ext_123 --count 1000",
    "ext installs add --extension ext_123 --count 5 --version ver_123",
  ],
  limits: [
    "ext limits show --extension ext_123",
    'ext limits request --extension ext_123 --limit max_sounds_per_extension=100 --reason "A drum kit of 100 samples"',
    'ext limits request --scope account --limit max_api_keys=40,max_team_members=20 --reason "One key per CI runner"',
    "ext limits requests --status pending",
  ],
  conformance: [
    "ext conformance --target https://api.example.com/developer/v1 --dry-run",
    'EXT_API_KEY="$KEY" EXT_READ_ONLY_KEY="$READ_KEY" ext conformance --target https://api.example.com/developer/v1 --junit conformance.xml',
    "ext exec -- sh -c 'ext conformance --target \"$EXT_BASE_URL\" --include-rate-limits'",
    'EXT_API_KEY="$KEY" ext conformance --target https://api.example.com/developer/v1 --save-profile platform.json',
    'EXT_API_KEY="$KEY" ext conformance --target https://api.example.com/developer/v1 --profile platform.json   (stale entries: exit 1)',
  ],
  proxy: [
    "ext proxy --upstream https://api.example.com/developer/v1 --report parity.json",
    "ext proxy --upstream https://api.example.com --port 0 --shadow --report parity.json",
    "ext proxy --upstream https://api.example.com --save-profile platform.json",
  ],
  exec: [
    "ext exec -- npm test",
    'ext exec --seed fixtures/demo.json -- sh -c \'printf "Authorization: Bearer %s\\n" "$EXT_API_KEY" | curl -fsS -H @- "$EXT_BASE_URL/extensions"\'',
    "ext exec --profile platform.json -- npm test   (your suite against the platform's observed answers)",
  ],
};

/** What follows the options on a command's USAGE line that citty cannot render (it knows no `--` part). */
const USAGE_TAIL: Record<string, string> = { exec: " -- CMD…" };

const EXIT_CODES: Record<string, string> = {
  default: "0 success, 1 API or runtime error, 2 usage or local validation error",
  deploy:
    "0 success, 1 API or runtime error, 2 usage or local validation error, 130 Ctrl-C stopped the upload (nothing was submitted) or the --wait",
  conformance:
    "0 nothing the spec (or a --profile) says differs, 1 differences, a stale profile or something left behind,\n  2 usage error, 75 the target's rate limits stopped the run (retry when it says), 130 Ctrl-C",
  exec: "the exit code of CMD (128 + n when signal n ended it; 127 when it could not be started);\n  2 usage error or invalid --seed fixture (CMD is not run); 1 the emulator could not start",
};

// biome-ignore lint/suspicious/noControlCharactersInRegex: it matches ANSI colour escapes, which start with ESC.
const ANSI = /\x1b\[[0-9;]*m/g;

/** Help is fitted to the terminal; a pipe or a file gets the conventional 80 columns. */
export const DEFAULT_HELP_WIDTH = 80;

/** Lines narrower than this are not worth wrapping into: the text would be a column of single words. */
const MIN_HELP_WIDTH = 40;
/** A table row keeps its description column only while that column has this much room. */
const MIN_DESCRIPTION_WIDTH = 20;

export async function helpText(
  cmd: AnyCommand,
  parent: AnyCommand | undefined,
  name: string,
  color: boolean,
  width: number = DEFAULT_HELP_WIDTH,
): Promise<string> {
  let text = await renderUsage(cmd, parent);
  const tail = USAGE_TAIL[name];
  if (tail) text = text.replace(/^(.*USAGE.*)$/m, (line) => line.trimEnd() + tail);
  const examples = EXAMPLES[name];
  if (examples?.length) text += `\n\nEXAMPLES\n\n${examples.map((e) => `  ${e}`).join("\n")}`;
  text += `\n\nEXIT CODES\n\n  ${EXIT_CODES[name] ?? EXIT_CODES.default}`;
  // citty colours by environment variables only; a pipe or a file gets plain text.
  return wrapText(color ? text : text.replace(ANSI, ""), width);
}

/**
 * Every line cut to `width` columns at spaces, with no trailing spaces (citty pads its tables to the widest
 * row). A table row continues under its description column; any other line two columns in from its own
 * indent. A word is never broken: one too long for the column starts further left, and one wider than the
 * whole line (a long URL) is left whole.
 */
export function wrapText(text: string, width: number): string {
  const columns = Math.max(MIN_HELP_WIDTH, Math.floor(width) || DEFAULT_HELP_WIDTH);
  return text
    .split("\n")
    .flatMap((line) => wrapLine(trimEnd(line), columns))
    .join("\n");
}

const visibleLength = (s: string) => s.replace(ANSI, "").length;

// biome-ignore lint/suspicious/noControlCharactersInRegex: spaces before a closing colour escape are trailing too.
const trimEnd = (line: string) => line.trimEnd().replace(/ +((?:\x1b\[[0-9;]*m)+)$/, "$1");

/** `a|b|c` cut after its bars into pieces of at most `room` columns where it can be; any other word whole. */
function pieces(word: string, room: number): string[] {
  if (visibleLength(word) <= room || !word.includes("|")) return [word];
  const out: string[] = [];
  let piece = "";
  for (const part of word.split(/(?<=\|)/)) {
    if (piece !== "" && visibleLength(piece) + visibleLength(part) > room) {
      out.push(piece);
      piece = "";
    }
    piece += part;
  }
  out.push(piece);
  return out;
}

function wrapLine(line: string, width: number): string[] {
  const plain = line.replace(ANSI, "");
  if (plain.length <= width) return [line];
  const lead = /^ */.exec(plain)![0].length;
  // A table row: its first cell is one word followed by two or more spaces.
  const cell = /^( *\S+ {2,})(?=\S)/.exec(plain)?.[1]?.length;
  const hanging = " ".repeat(lead + 2);
  const indent = cell !== undefined && cell <= width - MIN_DESCRIPTION_WIDTH ? " ".repeat(cell) : hanging;
  const lines: string[] = [];
  // Runs of spaces are empty words: kept inside a line, trimmed where a line ends. A word longer than a
  // whole line (the root's `serve|deploy|…` list) is cut after its `|`s, its pieces joined without a space.
  const tokens = line
    .split(" ")
    .flatMap((word, i) => pieces(word, width - hanging.length).map((text, j) => ({ text, space: i > 0 && j === 0 })));
  let current = tokens[0]!.text;
  for (const { text, space } of tokens.slice(1)) {
    const gap = space ? 1 : 0;
    if (text !== "" && current.trim() !== "" && visibleLength(current) + gap + visibleLength(text) > width) {
      lines.push(trimEnd(current));
      // A word too long for the description column (a URL) starts further left instead.
      current = (indent.length + visibleLength(text) > width ? hanging : indent) + text;
    } else current += space ? ` ${text}` : text;
  }
  lines.push(trimEnd(current));
  return lines;
}
