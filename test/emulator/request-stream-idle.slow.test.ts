/**
 * A quiet live request log outlives the server's idle-connection limit: the limit is for keep-alive
 * connections between requests, and a stream that waits for events is not one. Before, the 10 s limit cut a
 * stream whose heartbeat came every 15 s (the dashboard's Requests page logged ERR_INCOMPLETE_CHUNKED_ENCODING
 * and reconnected). Here the limit is 1 s: the stream stays open past several of them and still delivers, on
 * both loopback addresses (a browser reaches the dashboard's origin over [::1] first, on the twin listener).
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { startTestEmulator, stopTestEmulator, type TestEmulator } from "../helpers/emulator";
import { waitFor } from "../helpers/wait-for";

const IDLE_S = 1;
let emu: TestEmulator;
beforeAll(async () => {
  emu = await startTestEmulator({ idleTimeoutSeconds: IDLE_S });
});
afterAll(() => stopTestEmulator(emu));

const ipv6 = (await import("node:os")).networkInterfaces().lo?.some((a) => a.address === "::1") ?? false;

test.each([
  ["127.0.0.1", true],
  ["[::1]", ipv6],
])(
  "a stream quiet for longer than the idle limit stays open and delivers the next request (%s)",
  async (address, available) => {
    if (!available) return; // no IPv6 loopback on this machine: no twin listener to test
    const res = await fetch(`${emu.adminUrl.replace("127.0.0.1", address)}/requests/stream`, {
      headers: { authorization: `Bearer ${emu.runtime.control.adminToken}` },
    });
    expect(res.status).toBe(200);
    const reader = res.body!.getReader();
    const decoder = new TextDecoder();
    let text = decoder.decode((await reader.read()).value);
    // Quiet for five idle limits (Bun checks idle connections every few seconds, not to the millisecond): the
    // condition waited for is the time itself, and the stream must still be there after it.
    const quietUntil = performance.now() + 5_000 * IDLE_S;
    await waitFor(() => performance.now() >= quietUntil, "five idle limits to pass");
    await emu.client.GET("/developer/v1/extensions");
    while (!text.includes("event: request")) {
      const { value, done } = await reader.read();
      expect(done).toBe(false);
      text += decoder.decode(value);
    }
    expect(text).toContain('"path":"/developer/v1/extensions"');
    await reader.cancel();
  },
  20_000,
);
