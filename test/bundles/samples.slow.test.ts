import { beforeAll, describe, expect, test } from "bun:test";
import { SAMPLE_BUNDLES } from "../../scripts/lib/samples";
import { DEFAULT_BUNDLE_LIMITS } from "../../server/bundles/bundle-limits";
import { inspectBundle } from "../../server/bundles/inspect";
import { ARCHIVES_TIMEOUT_MS, sampleArchives } from "../helpers/build-cache";

let archives: Map<string, string>;
beforeAll(async () => {
  archives = await sampleArchives(SAMPLE_BUNDLES);
}, ARCHIVES_TIMEOUT_MS);

describe("inspectBundle on the sample bundles (fixtures/bundles)", () => {
  for (const sample of SAMPLE_BUNDLES) {
    test(`${sample.file}: ${sample.expect ? "reports its problem with its path" : "is valid"}`, async () => {
      const file = archives.get(sample.file)!;
      const result = await inspectBundle(file, DEFAULT_BUNDLE_LIMITS);
      if (!sample.expect) {
        expect(result.problems).toEqual([]);
        if (sample.warning) expect(result.warnings.some((w) => sample.warning!.test(w))).toBe(true);
        else expect(result.warnings).toEqual([]);
        return;
      }
      const hit = result.problems.find((p) => p.path === sample.expect!.path && sample.expect!.message.test(p.message));
      if (!hit)
        throw new Error(
          `${sample.file}: expected ${sample.expect.path} ${sample.expect.message}, got ${JSON.stringify(result.problems)}`,
        );
    }, 20_000);
  }
});
