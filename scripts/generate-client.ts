/** `npm run client:generate`: rewrites client/schema.d.ts and the dashboard's field rules from the current OpenAPI document. */
import { writeFileSync } from "node:fs";
import { CLIENT_TYPES_PATH, generateClientTypes } from "./lib/client-types";
import { FIELD_RULES_PATH, generateFieldRules } from "./lib/field-rules";

writeFileSync(CLIENT_TYPES_PATH, await generateClientTypes());
console.log(`wrote ${CLIENT_TYPES_PATH}`);
writeFileSync(FIELD_RULES_PATH, await generateFieldRules());
console.log(`wrote ${FIELD_RULES_PATH}`);
