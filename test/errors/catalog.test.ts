import { describe, expect, test } from "bun:test";
import { BUNDLE_DETAILS_MAX, ERROR_AREAS, errors, NAME_ECHO_MAX } from "../../server/errors/catalog";

test("the catalogue's areas name each error once: merging them hides none", () => {
  const names = ERROR_AREAS.flatMap((area) => Object.keys(area));
  expect(names.length).toBeGreaterThan(60);
  expect(names.filter((name, i) => names.indexOf(name) !== i)).toEqual([]);
  expect(Object.keys(errors).sort()).toEqual([...names].sort());
});

describe("errors.bundleInvalid", () => {
  test("counts every problem but lists at most BUNDLE_DETAILS_MAX, then says how many more", () => {
    const details = Array.from({ length: 150 }, (_, i) => ({
      path: `/abs${i}.js`,
      message: `/abs${i}.js: absolute path`,
    }));
    const body = errors.bundleInvalid(details).toBody().error;
    expect(body.message).toBe("The bundle failed inspection (150 problems).");
    expect(body.details).toHaveLength(BUNDLE_DETAILS_MAX + 1);
    expect(body.details!.at(-1)).toEqual({ path: "(archive)", message: "…and 50 more problems" });
  });

  test("a kilobyte-long archive name is echoed cut short", () => {
    const name = `${"a/".repeat(2000)}x.js`;
    const body = errors.bundleInvalid([{ path: name, message: `${name}: absolute path` }]).toBody().error;
    expect(body.details![0]!.path!.length).toBe(NAME_ECHO_MAX + 1);
    expect(body.details![0]!.message.length).toBeLessThan(NAME_ECHO_MAX + 210);
  });
});

describe("errors.validation", () => {
  test("names the first problem and counts the rest", () => {
    expect(errors.validation([{ field: "a", message: "a: bad" }]).message).toBe("Request failed validation: a: bad");
    expect(
      errors.validation([
        { field: "a", message: "a: bad" },
        { field: "b", message: "b: bad" },
        { field: "c", message: "c: bad" },
      ]).message,
    ).toBe("Request failed validation: a: bad (and 2 more)");
  });
});
