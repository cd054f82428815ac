/** readSecretValue on a pipe: the shell's one trailing newline dropped, everything else kept, bounded. */
import { describe, expect, test } from "bun:test";
import { Readable } from "node:stream";
import { UsageError } from "../../tools/calls/usage-error";
import { readSecretValue } from "../../tools/cli/lib/secret-value";

const piped = (...chunks: string[]) => Readable.from(chunks.map((c) => Buffer.from(c))) as unknown as NodeJS.ReadStream;

describe("readSecretValue from a pipe", () => {
  test.each([
    ["value\n", "value"],
    ["value\r\n", "value"],
    ["value", "value"],
    ["two\nlines\n\n", "two\nlines\n"],
    [" spaced ", " spaced "],
  ])("%j is stored as %j", async (input, expected) => {
    expect(await readSecretValue("X", piped(input))).toBe(expected);
  });

  test("empty (or only a newline) is a usage error", async () => {
    await expect(readSecretValue("X", piped("\n"))).rejects.toBeInstanceOf(UsageError);
    await expect(readSecretValue("X", piped())).rejects.toBeInstanceOf(UsageError);
  });

  test("64 KB is accepted; one byte more is refused, also when it arrives in many chunks", async () => {
    expect((await readSecretValue("X", piped(`${"a".repeat(64 * 1024)}\n`))).length).toBe(64 * 1024);
    await expect(readSecretValue("X", piped("a".repeat(64 * 1024 + 1)))).rejects.toThrow(
      /65537 bytes; the limit is 65536/,
    );
    await expect(readSecretValue("X", piped(...Array.from({ length: 100 }, () => "b".repeat(1024))))).rejects.toThrow(
      /over 65536 bytes/,
    );
  });
});
