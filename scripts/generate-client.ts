/** `npm run client:generate`: rewrites client/schema.d.ts from the current OpenAPI document. */
import { writeFileSync } from "node:fs";
import { CLIENT_TYPES_PATH, generateClientTypes } from "./lib/client-types";

writeFileSync(CLIENT_TYPES_PATH, await generateClientTypes());
console.log(`wrote ${CLIENT_TYPES_PATH}`);
