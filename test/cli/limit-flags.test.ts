/** `ext limits request --limit`: the key is judged before the value, so the message names what is wrong. */
import { describe, expect, test } from "bun:test";
import { UsageError } from "../../tools/calls/usage-error";
import { parseLimitFlags } from "../../tools/cli/commands/limits";

const refusal = (given: string[]) => {
  try {
    parseLimitFlags(given);
  } catch (e) {
    if (e instanceof UsageError) return e.message;
    throw e;
  }
  throw new Error(`${given.join(" ")} was accepted`);
};

describe("--limit KEY=VALUE", () => {
  test("several, comma-separated or repeated", () => {
    expect(parseLimitFlags(["max_api_keys=40,max_allow_hosts=30", "max_sounds_per_extension=80"])).toEqual({
      max_api_keys: 40,
      max_allow_hosts: 30,
      max_sounds_per_extension: 80,
    });
  });

  test("a camelCase or misspelt key is named as the problem, with a guess, whatever its value", () => {
    expect(refusal(["maxApiKeys=40"])).toBe("--limit: maxApiKeys is not a known limit key; did you mean max_api_keys?");
    // Two keys begin max_sounds_: no guess, but still the key named, not the value.
    expect(refusal(["maxSounds=80"])).toBe("--limit: maxSounds is not a known limit key (see `ext limits show`)");
    expect(refusal(["max_sound_per_extension=lots"])).toContain("did you mean max_sounds_per_extension?");
    expect(refusal(["sounds=80"])).toBe("--limit: sounds is not a known limit key (see `ext limits show`)");
  });

  test("a known key with a value that is not a whole number, and a part with no key", () => {
    expect(refusal(["max_api_keys=4.5"])).toBe(
      '--limit: max_api_keys takes a whole number, e.g. max_api_keys=40 (got "4.5")',
    );
    expect(refusal(["max_api_keys="])).toContain("takes a whole number");
    expect(refusal(["=40"])).toBe('--limit takes KEY=VALUE, e.g. max_api_keys=40 (got "=40")');
    expect(refusal(["max_api_keys"])).toContain("--limit takes KEY=VALUE");
  });

  test("spaces around the = and an upper-case key are read as the key they spell", () => {
    expect(parseLimitFlags(["max_api_keys = 40"])).toEqual({ max_api_keys: 40 });
    expect(refusal(["MAX_API_KEYS=40"])).toBe(
      "--limit: MAX_API_KEYS is not a known limit key; did you mean max_api_keys?",
    );
  });

  test("what a terminal would act on, or what cannot be seen, is shown escaped in every message", () => {
    expect(refusal(["\u001b[31mred=1"])).not.toContain("\u001b");
    expect(refusal(["max_api_keys=\u001b[2J"])).not.toContain("\u001b");
    expect(refusal(["\u001b[2J"])).not.toContain("\u001b");
    expect(refusal(["max_api_keys\u200b=40"])).toBe(
      "--limit: max_api_keys\\u200b is not a known limit key; did you mean max_api_keys?",
    );
  });
});
