/**
 * Reads a secret's value for `ext secrets set`: from standard input when it is a pipe or a file, from a
 * hidden prompt when it is a terminal. Never from a flag or an argument: those show in `ps`, /proc and
 * shell history. Bounded: more than the server accepts is refused before anything is sent.
 */

import { SECRET_VALUE_MAX_BYTES } from "../../../common/api-rules";
import { UsageError } from "../../calls/usage-error";

/** One trailing line break is the shell's (`<<<`, `echo`), not the value's. */
const stripOneNewline = (s: string) => s.replace(/\r?\n$/, "");

function checked(value: string): string {
  if (value.length === 0)
    throw new UsageError(
      "the secret value is empty: give it on standard input, e.g. `ext secrets set NAME < value.txt`",
    );
  const bytes = Buffer.byteLength(value, "utf8");
  if (bytes > SECRET_VALUE_MAX_BYTES)
    throw new UsageError(`the secret value is ${bytes} bytes; the limit is ${SECRET_VALUE_MAX_BYTES} bytes`);
  return value;
}

/** All of standard input, stopping (refused) once it passes the limit plus a line break. */
async function readPiped(stdin: NodeJS.ReadStream): Promise<string> {
  const chunks: Buffer[] = [];
  let total = 0;
  for await (const chunk of stdin as AsyncIterable<Buffer>) {
    total += chunk.length;
    if (total > SECRET_VALUE_MAX_BYTES + 2) {
      stdin.destroy();
      throw new UsageError(`the secret value is over ${SECRET_VALUE_MAX_BYTES} bytes (the limit)`);
    }
    chunks.push(chunk);
  }
  return stripOneNewline(Buffer.concat(chunks).toString("utf8"));
}

/** A prompt on stderr; what is typed is not echoed. Enter ends it, Ctrl-C aborts (exit 130), Backspace erases. */
function readHidden(stdin: NodeJS.ReadStream, prompt: string): Promise<string> {
  // Echo off before the prompt shows: what is typed at once after it must not appear either.
  stdin.setRawMode(true);
  process.stderr.write(prompt);
  return new Promise((resolve, reject) => {
    let value = "";
    const finish = (fn: () => void) => {
      stdin.off("data", onData);
      stdin.setRawMode(false);
      stdin.pause();
      process.stderr.write("\n");
      fn();
    };
    const onData = (chunk: Buffer) => {
      for (const ch of chunk.toString("utf8")) {
        if (ch === "\r" || ch === "\n" || ch === "\u0004") return finish(() => resolve(value));
        if (ch === "\u0003") return finish(() => reject(new UsageError("cancelled; nothing was stored")));
        if (ch === "\u007f" || ch === "\b") value = [...value].slice(0, -1).join("");
        else value += ch;
        if (Buffer.byteLength(value, "utf8") > SECRET_VALUE_MAX_BYTES)
          return finish(() =>
            reject(new UsageError(`the secret value is over ${SECRET_VALUE_MAX_BYTES} bytes (the limit)`)),
          );
      }
    };
    stdin.resume();
    stdin.on("data", onData);
  });
}

export async function readSecretValue(name: string, stdin: NodeJS.ReadStream = process.stdin): Promise<string> {
  const value = stdin.isTTY ? await readHidden(stdin, `value of ${name} (not shown): `) : await readPiped(stdin);
  return checked(value);
}
