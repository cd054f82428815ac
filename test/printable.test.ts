/** The one escaping function every printed name goes through (CLI and dashboard). */
import { expect, test } from "bun:test";
import { printable, printableLines } from "../common/text/printable";

test("control, C1, bidirectional-formatting and zero-width characters are shown escaped; everything else as it is", () => {
  expect(printable("plain/näme ✓.js")).toBe("plain/näme ✓.js");
  expect(printable("a\nb\rc\td")).toBe("a\\nb\\rc\\td");
  expect(printable("\u001b[2Kok\u0000\u007f\u009b")).toBe("\\x1b[2Kok\\x00\\x7f\\x9b");
  expect(printable("a\u202egpj.js\u2066\u2028")).toBe("a\\u202egpj.js\\u2066\\u2028");
  expect(printable("max\u200b_keys\u2060\ufeff")).toBe("max\\u200b_keys\\u2060\\ufeff");
  // Joiners that scripts and emoji sequences need stay as they are.
  expect(printable("می\u200cخواهم 👩\u200d💻")).toBe("می\u200cخواهم 👩\u200d💻");
});

test("printableLines keeps the line breaks and tabs of a composed message, escaping every other control", () => {
  expect(printableLines("f.json:1:2: bad\n    1 | \t}\u001b[2K\r\u0007")).toBe(
    "f.json:1:2: bad\n    1 | \t}\\x1b[2K\\r\\x07",
  );
});
