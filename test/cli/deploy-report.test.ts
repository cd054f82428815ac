/** The dry-run tree and the summary line, in process: nesting, sizes in B/KB/MB, counts in the singular. */
import { describe, expect, test } from "bun:test";
import type { DeployReport } from "../../client/deploy-result";
import { formatBytes, plural } from "../../common/text/format";
import { fileTree, packedLine } from "../../tools/cli/lib/deploy-report";

const report = (over: Partial<DeployReport>): DeployReport => ({
  dryRun: true,
  extensionId: "ext_1",
  version: "1",
  versionId: null,
  status: null,
  reason: null,
  bundle: { bytes: 300, sha256: "ab", entries: 0 },
  files: [],
  excluded: [],
  components: [],
  sounds: [],
  soundFileLimits: { max: 10 * 1024 * 1024, warning: 5 * 1024 * 1024 },
  soundLimit: { value: 50, source: "platform_default", used: 0 },
  warnings: [],
  upload: null,
  ...over,
});

describe("formatBytes and plural", () => {
  test.each([
    [0, "0 B"],
    [214, "214 B"],
    [1023, "1023 B"],
    [1024, "1.0 KB"],
    [1536, "1.5 KB"],
    [1024 * 1024 - 1, "1024.0 KB"],
    [1024 * 1024, "1.0 MB"],
    [5 * 1024 * 1024, "5.0 MB"],
  ])("%d bytes read %s", (n, text) => expect(formatBytes(n)).toBe(text));
  test("one and many", () => {
    expect(plural(1, "file")).toBe("1 file");
    expect(plural(0, "file")).toBe("0 files");
    expect(plural(2, "entry", "entries")).toBe("2 entries");
    // The dashboard's counts too: "1 sound", never "1 sounds" (the bundle page, the review queue).
    expect([0, 1, 2, 60].map((n) => plural(n, "sound"))).toEqual(["0 sounds", "1 sound", "2 sounds", "60 sounds"]);
  });
});

describe("fileTree", () => {
  test("folders open once, nested ones indented, siblings after a deeper folder back at their level", () => {
    const r = report({
      files: [
        { path: "a/b/c.txt", bytes: 1 },
        { path: "a/b/d.txt", bytes: 2048 },
        { path: "a/e.txt", bytes: 3 },
        { path: "b.txt", bytes: 4 },
        { path: "layer/x/y.js", bytes: 5 },
      ],
      components: [{ path: "layer/", gzipBytes: 25, limit: 5 * 1024 * 1024 }],
    });
    expect(fileTree(r).map((l) => l.trimEnd())).toEqual([
      "files (5 files, 2.0 KB):",
      "  a/",
      "    b/",
      "      c.txt       1 B",
      "      d.txt    2.0 KB",
      "    e.txt         3 B",
      "  b.txt           4 B",
      "  layer/               component: 25 B gzipped of 5.0 MB",
      "    x/",
      "      y.js        5 B",
    ]);
  });

  test("the summary names at most five excluded paths and counts the rest", () => {
    const excluded = ["a", "b", "c", "d", "e", "f", "g"].map((p) => ({ path: p, rule: "r" }));
    expect(packedLine(report({ files: [{ path: "m.json", bytes: 1 }], excluded }))).toBe(
      "packed 1 file, 1 B (archive 300 B, sha256 ab); left out 7: a, b, c, d, e and 2 more (see --dry-run)",
    );
  });
});
