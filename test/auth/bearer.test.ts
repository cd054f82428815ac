/**
 * One reading of `Authorization: Bearer <token>` (server/auth/bearer.ts) for the developer API, the control
 * plane's admin token and the request log's masking: a header one of them refuses as malformed, the others
 * refuse too, and the log never shows part of a token from a header the API did not take as a key.
 */
import { describe, expect, test } from "bun:test";
import { bearerToken } from "../../server/auth/bearer";
import { adminBearerCheck } from "../../server/runtime/control-state/admin-auth";
import { maskAuthorization } from "../../server/runtime/control-state/request-detail";

const ADMIN = "adm_0123456789abcdefghijklmnopqrstuvwxyzABCDEFG";
const isAdmin = adminBearerCheck(ADMIN);

describe("bearerToken", () => {
  test.each([
    ["Bearer ext_abc", "ext_abc"],
    ["bearer ext_abc", "ext_abc"],
    ["BEARER\text_abc \t", "ext_abc"],
  ])("%j → %j", (header, token) => {
    expect(bearerToken(header)).toBe(token);
  });

  test.each(["Bearer", "Bearer ", "Basic ext_abc", "Bearer ext_abc extra", "Bearerext_abc", " Bearer ext_abc"])(
    "%j is malformed everywhere",
    (header) => {
      expect(bearerToken(header)).toBeNull();
      expect(isAdmin(header.replace("ext_abc", ADMIN))).toBe(false);
      expect(maskAuthorization(header.replace("ext_abc", "ext_AbCdEfGhIjKl"))).toBe("(masked)");
    },
  );

  test("the well-formed header is the admin's, and is masked to a prefix in the log", () => {
    expect(isAdmin(`bearer ${ADMIN}`)).toBe(true);
    expect(maskAuthorization("bearer ext_AbCdEfGhIjKlMnOp")).toMatch(/^bearer ext_\w+…$/);
  });
});
