/** A key hash from a fixture or export must carry the data directory's HMAC: a bare SHA-256 is refused. */
import { describe, expect, test } from "bun:test";
import { legacyKeyHash } from "../../server/auth/keys";
import { type FixtureError, validateFixture } from "../../server/seed/validate";

const withKeyHash = (keyHash: string) => ({
  accounts: [{ id: "acc_a", name: "A", apiKeys: [{ id: "key_a", name: "ci", keyHash, scopes: ["*"] }] }],
});

const problemsOf = (data: unknown) => {
  try {
    validateFixture(data);
  } catch (e) {
    return (e as FixtureError).problems;
  }
  return [];
};

describe("keyHash in a fixture", () => {
  test("a bare SHA-256 of a key (which any server would accept for it) is refused, saying why", () => {
    expect(problemsOf(withKeyHash(legacyKeyHash("ext_anyone_can_compute_this_hash")))).toEqual([
      {
        path: "accounts[0].apiKeys[0].keyHash",
        message: expect.stringContaining("a bare SHA-256 would let the key in on any server"),
      },
    ]);
  });

  test("a keyed hash (hmac:) is loaded as before", () => {
    expect(problemsOf(withKeyHash(`hmac:${"a".repeat(64)}`))).toEqual([]);
  });
});
