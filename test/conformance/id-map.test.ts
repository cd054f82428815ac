/**
 * The shadow's id map (tools/conformance/id-map.ts): the upstream chooses what it answers, so only values shaped
 * like ids are learnt — an empty or short "id" would rewrite every later replayed path and body — and the map
 * stays bounded however many ids an upstream invents.
 */
import { expect, test } from "bun:test";
import { idMap, MAX_IDS } from "../../tools/conformance/id-map";

test("ids at the same places are learnt, nested ones too, and applied to later text", () => {
  const ids = idMap();
  ids.learn(
    { extension: { id: "ext_UPSTREAM001", accountId: "acc_UPSTREAM01" } },
    { extension: { id: "ext_01jemulated", accountId: "acc_01jemulated" } },
  );
  expect(ids.mapText("/developer/v1/extensions/ext_UPSTREAM001/versions")).toBe(
    "/developer/v1/extensions/ext_01jemulated/versions",
  );
  expect(ids.get("acc_UPSTREAM01")).toBe("acc_01jemulated");
});

test("an empty, short or odd value is not learnt: it would rewrite every later request", () => {
  const ids = idMap();
  for (const bad of ["", "e", "ext_1", "a b c d e f g", "ext_\u001b[31mred", "x".repeat(129)])
    ids.learn({ extension: { id: bad } }, { extension: { id: "ext_01jemulated" } });
  ids.learn({ extension: { id: "ext_UPSTREAM001" } }, { extension: { id: "" } });
  expect(ids.size).toBe(0);
  expect(ids.mapText('{"name":"Extension e"}')).toBe('{"name":"Extension e"}');
});

test("bounded: past MAX_IDS the oldest are forgotten", () => {
  const ids = idMap();
  for (let i = 0; i <= MAX_IDS; i++)
    ids.learn({ id: `ext_up${String(i).padStart(8, "0")}` }, { id: `ext_em${String(i).padStart(8, "0")}` });
  expect(ids.size).toBe(MAX_IDS);
  expect(ids.get("ext_up00000000")).toBeUndefined();
  expect(ids.get(`ext_up${String(MAX_IDS).padStart(8, "0")}`)).toBe(`ext_em${String(MAX_IDS).padStart(8, "0")}`);
});
