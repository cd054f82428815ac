/**
 * client/fixture.d.ts: the fixture format as a type, for both helpers' `startEmulator({ fixture })`. Made by
 * openapi-typescript from the `Fixture` model of the OpenAPI document (server/seed/model.ts) and the models
 * it refers to, with `defaultNonNullable: false`: a fixture is written by hand, so a field with a default
 * stays optional (the response types of client/schema.d.ts keep the generator's defaults).
 */
import { join, resolve } from "node:path";
import openapiTS, { astToString, COMMENT_HEADER } from "openapi-typescript";
import { openApiDocument } from "../../server/start/document";
import { typedMapTransform } from "./typed-maps";

export const FIXTURE_TYPES_PATH = join(resolve(import.meta.dir, "../.."), "client/fixture.d.ts");
const REF = "#/components/schemas/";

/** `Fixture` and every model it reaches through `$ref`. */
function reachable(schemas: Record<string, unknown>, root: string): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  const visit = (node: unknown) => {
    if (Array.isArray(node)) for (const item of node) visit(item);
    else if (node && typeof node === "object")
      for (const [k, v] of Object.entries(node)) {
        if (k === "$ref" && typeof v === "string" && v.startsWith(REF)) add(v.slice(REF.length));
        else visit(v);
      }
  };
  const add = (name: string) => {
    if (name in out) return;
    if (!(name in schemas)) throw new Error(`the OpenAPI document has no model ${name}`);
    out[name] = schemas[name];
    visit(schemas[name]);
  };
  add(root);
  return out;
}

export async function generateFixtureTypes(document?: object): Promise<string> {
  const doc = (document ?? (await openApiDocument())) as { components: { schemas: Record<string, unknown> } };
  const mini = {
    openapi: "3.1.0",
    info: { title: "ext fixture", version: "1" },
    paths: {},
    components: { schemas: reachable(doc.components.schemas, "Fixture") },
  };
  const ast = await openapiTS(mini as Parameters<typeof openapiTS>[0], {
    defaultNonNullable: false,
    transform: typedMapTransform,
  });
  return `${COMMENT_HEADER}${astToString(ast)}`;
}

if (import.meta.main) {
  await Bun.write(FIXTURE_TYPES_PATH, await generateFixtureTypes());
  console.log(`wrote ${FIXTURE_TYPES_PATH}`);
}
