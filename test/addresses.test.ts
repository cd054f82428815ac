/** common/addresses.ts's IP check, which the server uses for the address it writes to server.json: node:net's rule. */
import { expect, test } from "bun:test";
import { isIP } from "node:net";
import { isIpAddress } from "../common/addresses";

test("an IP address is what node:net's isIP says it is, zones aside", () => {
  const cases = [
    ...[
      "127.0.0.1",
      "0.0.0.0",
      "255.255.255.255",
      "10.1.2.3",
      "::1",
      "::",
      "fe80::1",
      "2001:db8::1",
      "::ffff:127.0.0.1",
    ],
    ...["1:2:3:4:5:6:7:8", "256.1.1.1", "01.2.3.4", "1.2.3", "1.2.3.4.5", "1::2::3", "gggg::1", "[::1]", "localhost"],
    ...["", " 1.2.3.4", "1.2.3.4 ", "::1]/x[", "1:2:3:4:5:6:7:8:9", "example.com", "0x7f.0.0.1", "127.1"],
  ];
  for (const text of cases) expect([text, isIpAddress(text)]).toEqual([text, isIP(text) !== 0]);
  // An IPv6 zone is not an address a listener is reported at: refused (the host as given is used instead).
  expect(isIpAddress("fe80::1%eth0")).toBe(false);
});
