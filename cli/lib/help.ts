/**
 * `--help` text: citty's usage block plus an EXAMPLES section. Descriptions stay one line (they are also
 * the command list of `ext --help`); examples live here, one list per command.
 */
import { renderUsage, type CommandDef } from "citty";

export const EXAMPLES: Record<string, string[]> = {
  ext: ["ext serve --seed demo", "ext exec -- npm test", "ext deploy ./dist --target local", "ext <command> --help"],
  serve: [
    "ext serve --seed demo",
    "ext serve --memory --port 0 --ready-file /tmp/ext.json",
    "ext serve --host 0.0.0.0 --admin-token s3cret --no-rate-limits",
  ],
  deploy: [
    "EXT_API_KEY=ext_demo_0123456789abcdefghijklmnopqrstuv ext deploy ./dist --extension ext_123 --target local",
    "ext deploy ./dist --version 1.2.0 --changelog 'New sounds' --build 'npm run build' --wait",
    "ext deploy ./dist --dry-run --json",
    "ext deploy ./dist --target https://api.example.com/developer/v1 --api-key \"$EXT_API_KEY\"",
  ],
  seed: [
    "ext seed fixtures/demo.json --data-dir ./.ext-data",
    "ext seed demo --target http://127.0.0.1:4780",
    "EXT_LOCAL_URL=http://127.0.0.1:5000/developer/v1 ext seed demo --target local",
    "ext seed team.json --target https://emu.internal:4780 --admin-token s3cret --json",
  ],
  logs: ["ext logs", "ext logs --follow", "ext logs --follow --json --limit 0 --target http://127.0.0.1:4780"],
  exec: ["ext exec -- npm test", "ext exec --seed fixtures/demo.json -- sh -c 'curl -fsS -H \"Authorization: Bearer $EXT_API_KEY\" \"$EXT_BASE_URL/extensions\"'"],
};

const ANSI = /\x1b\[[0-9;]*m/g;

export async function helpText(cmd: CommandDef<any>, parent: CommandDef<any> | undefined, name: string, color: boolean): Promise<string> {
  let text = await renderUsage(cmd, parent);
  const examples = EXAMPLES[name];
  if (examples?.length) text += `\n\nEXAMPLES\n\n${examples.map((e) => `  ${e}`).join("\n")}`;
  text += "\n\nEXIT CODES\n\n  0 success, 1 API or runtime error, 2 usage or local validation error";
  // citty colours by environment variables only; a pipe or a file gets plain text.
  return color ? text : text.replace(ANSI, "");
}
