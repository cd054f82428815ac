/**
 * client/schema.d.ts is openapi-typescript's output for the document `ext openapi` prints, with the
 * generator's defaults and header. One function, used by `npm run client:generate` and by the drift test.
 */
import { join, resolve } from "node:path";
import openapiTS, { astToString, COMMENT_HEADER } from "openapi-typescript";
import { openApiDocument } from "../../src/docs/document";
import { typedMapTransform } from "./typed-maps";

export const CLIENT_TYPES_PATH = join(resolve(import.meta.dir, "../.."), "client/schema.d.ts");

export async function generateClientTypes(document?: object): Promise<string> {
  const doc = document ?? (await openApiDocument());
  // openapi-typescript's own type for the document is a deep OpenAPI3 model; the JSON we pass is one.
  return `${COMMENT_HEADER}${astToString(await openapiTS(doc as Parameters<typeof openapiTS>[0], { transform: typedMapTransform }))}`;
}
