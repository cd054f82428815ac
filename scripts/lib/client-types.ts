/**
 * client/schema.d.ts is openapi-typescript's output for the document `ext openapi` prints, with the generator's
 * defaults and header and two refinements of ours: a map whose keys the document names is typed by those keys
 * (typed-maps.ts), and the seed body by the helpers' fixture type (below). `generateClientTypes` is used by
 * `npm run client:generate` and by the drift test; `generateDocumentTypes` is the generator alone, as a user's
 * `openapi-typescript openapi.json` makes it (examples/typed-client).
 */
import { join, resolve } from "node:path";
import openapiTS, { astToString, COMMENT_HEADER } from "openapi-typescript";
import ts from "typescript";
import { openApiDocument } from "../../server/start/document";
import { typedMapTransform } from "./typed-maps";

export const CLIENT_TYPES_PATH = join(resolve(import.meta.dir, "../.."), "client/schema.d.ts");

/** Marks, in the copy of the document the types are made from, the body typed by client/fixture.d.ts. */
const FIXTURE_INPUT = "x-ext-fixture-input";

interface SeedPaths {
  paths: { "/_emulator/seed": { post: { requestBody: { content: { "application/json": { schema: unknown } } } } } };
}

/**
 * The JSON body of POST /_emulator/seed is a fixture as people write one: the type of client/fixture.d.ts, in
 * which a field with a default may be left out. The document's `Fixture` model, typed by the generator's
 * defaults, makes such fields required (right for answers, which always carry them): a typed call could not send
 * a fixture that relies on a default.
 */
function withFixtureInput(document: object): object {
  const copy = structuredClone(document) as SeedPaths;
  // With a type: the generator passes a schema without one to no transform.
  copy.paths["/_emulator/seed"].post.requestBody.content["application/json"].schema = {
    type: "object",
    [FIXTURE_INPUT]: true,
  };
  return copy;
}

/** `import("./fixture").components["schemas"]["Fixture"]` */
function fixtureType(): ts.TypeNode {
  const { factory: f } = ts;
  const key = (name: string) => f.createLiteralTypeNode(f.createStringLiteral(name));
  const components = f.createImportTypeNode(key("./fixture"), undefined, f.createIdentifier("components"));
  return f.createIndexedAccessTypeNode(f.createIndexedAccessTypeNode(components, key("schemas")), key("Fixture"));
}

/** The generator's output for `document`, with its header. */
async function typesOf(document: object, options?: Parameters<typeof openapiTS>[1]): Promise<string> {
  // openapi-typescript's own type for the document is a deep OpenAPI3 model; the JSON we pass is one.
  return `${COMMENT_HEADER}${astToString(await openapiTS(document as Parameters<typeof openapiTS>[0], options))}`;
}

export async function generateDocumentTypes(document?: object): Promise<string> {
  return typesOf(document ?? (await openApiDocument()));
}

export async function generateClientTypes(document?: object): Promise<string> {
  return typesOf(withFixtureInput(document ?? (await openApiDocument())), {
    transform: (schema) =>
      schema && typeof schema === "object" && FIXTURE_INPUT in schema ? fixtureType() : typedMapTransform(schema),
  });
}
