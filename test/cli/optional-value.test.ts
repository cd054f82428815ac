/** `--auto-approve[=DELAY_MS]`: a flag whose value is optional must not swallow the next option. */
import { describe, expect, test } from "bun:test";
import { parseArgs } from "citty";
import { parseServerConfig } from "../../server/base/config";
import { serveArgs, serveFlags } from "../../tools/cli/commands/serve";
import { withOptionalValues } from "../../tools/cli/lib/optional-value";

const delay = (argv: string[]) =>
  parseServerConfig(serveFlags(parseArgs(withOptionalValues(argv, serveArgs), serveArgs)), {}).autoApproveMs;

describe("ext serve --auto-approve", () => {
  test("alone means at once; =N and a following number are the delay; absent means off", () => {
    expect(delay(["--auto-approve"])).toBe(0);
    expect(delay(["--auto-approve", "--memory"])).toBe(0);
    expect(delay(["--auto-approve=250"])).toBe(250);
    expect(delay(["--auto-approve", "250", "--memory"])).toBe(250);
    expect(delay(["--memory"])).toBeNull();
  });

  test("the next option keeps its meaning", () => {
    const args = parseArgs(withOptionalValues(["--auto-approve", "--host", "0.0.0.0"], serveArgs), serveArgs);
    expect((args as Record<string, unknown>).host).toBe("0.0.0.0");
  });

  test("a word that is not a number is refused as a delay", () => {
    expect(() => delay(["--auto-approve", "soon"])).toThrow(/auto-approve delay/);
  });
});
