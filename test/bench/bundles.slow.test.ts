/**
 * The bench's upload rows must measure a 202, never a 422: its generated bundles are checked here against
 * the server's own inspection with the platform's default limits, at the sizes the bench uses.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { benchBundle } from "../../bench/lib/bundles";
import { settingsFor } from "../../bench/lib/settings";
import { DEFAULT_BUNDLE_LIMITS } from "../../server/bundles/bundle-limits";
import { inspectBundle } from "../../server/bundles/inspect";

const dir = mkdtempSync(join(tmpdir(), "bench-bundles-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("bench bundles (bench/lib/bundles.ts)", () => {
  test("the 1 MB bundle is valid, with no warning, and about 1 MB on the wire (gzip cannot shrink it)", async () => {
    const bundle = await benchBundle(1, dir);
    expect(bundle.bytes).toBeGreaterThan(1024 * 1024);
    expect(bundle.bytes).toBeLessThan(1.1 * 1024 * 1024);
    const result = await inspectBundle(bundle.file, DEFAULT_BUNDLE_LIMITS);
    expect(result.problems).toEqual([]);
    expect(result.warnings).toEqual([]);
    expect(result.soundCount).toBe(bundle.sounds);
  });

  test("the large bundle is valid: just under the 50 MB archive cap, assets under 20 MB, every sound under 5 MB", async () => {
    const { largeBundleMB } = settingsFor(false);
    const bundle = await benchBundle(largeBundleMB, dir);
    expect(bundle.bytes).toBeGreaterThan(largeBundleMB * 1024 * 1024);
    expect(bundle.bytes).toBeLessThanOrEqual(DEFAULT_BUNDLE_LIMITS.bundle_total_bytes);
    const result = await inspectBundle(bundle.file, DEFAULT_BUNDLE_LIMITS);
    expect(result.problems).toEqual([]);
    expect(result.warnings).toEqual([]);
    expect(result.soundCount).toBe(bundle.sounds);
  }, 60_000);

  test("a bundle is built once and reused (the bench does not pay for gzip on every run)", async () => {
    const first = await benchBundle(1, dir);
    const again = await benchBundle(1, dir);
    expect(again).toEqual(first);
    expect(Bun.file(first.file).lastModified).toBe(Bun.file(again.file).lastModified);
  });
});
