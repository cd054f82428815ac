/** `jsonResponses` (src/http/responses.ts): the list's 200s, cloned from one Response per body and key. */
import { describe, expect, test } from "bun:test";
import { jsonResponses } from "../../src/http/responses";

describe("jsonResponses", () => {
  test("each call is a fresh Response with the body and JSON type; headers added to one never reach the next", async () => {
    const respond = jsonResponses();
    const first = respond("acc_a", '{"n":1}');
    first.headers.set("X-RateLimit-Remaining", "9");
    expect(await first.text()).toBe('{"n":1}');
    const second = respond("acc_a", '{"n":1}');
    expect(second.headers.get("content-type")).toBe("application/json;charset=utf-8");
    expect(second.headers.get("X-RateLimit-Remaining")).toBeNull();
    expect(await second.text()).toBe('{"n":1}');
    expect(second).not.toBe(first);
  });

  test("a new body for a key is answered at once; keys never see each other's bodies", async () => {
    const respond = jsonResponses();
    expect(await respond("acc_a", '{"n":1}').text()).toBe('{"n":1}');
    expect(await respond("acc_b", '{"n":2}').text()).toBe('{"n":2}');
    expect(await respond("acc_a", '{"n":3}').text()).toBe('{"n":3}');
    expect(await respond("acc_b", '{"n":2}').text()).toBe('{"n":2}');
  });
});
