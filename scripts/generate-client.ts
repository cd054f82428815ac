/**
 * `npm run client:generate`: rewrites client/schema.d.ts, the dashboard's field rules, the profile compiler's
 * answer shapes and the tools' answer members from the current OpenAPI document, and the profile format's JSON
 * Schema from its model.
 */
import { writeFileSync } from "node:fs";
import { ANSWER_MEMBERS_PATH, generateAnswerMembers } from "./lib/answer-members";
import {
  ANSWER_SHAPES_PATH,
  generateAnswerShapes,
  generateProfileSchema,
  PROFILE_SCHEMA_PATH,
} from "./lib/answer-shapes";
import { CLIENT_TYPES_PATH, generateClientTypes } from "./lib/client-types";
import { FIELD_RULES_PATH, generateFieldRules } from "./lib/field-rules";

writeFileSync(CLIENT_TYPES_PATH, await generateClientTypes());
console.log(`wrote ${CLIENT_TYPES_PATH}`);
writeFileSync(FIELD_RULES_PATH, await generateFieldRules());
console.log(`wrote ${FIELD_RULES_PATH}`);
writeFileSync(ANSWER_SHAPES_PATH, await generateAnswerShapes());
console.log(`wrote ${ANSWER_SHAPES_PATH}`);
writeFileSync(PROFILE_SCHEMA_PATH, generateProfileSchema());
console.log(`wrote ${PROFILE_SCHEMA_PATH}`);
writeFileSync(ANSWER_MEMBERS_PATH, await generateAnswerMembers());
console.log(`wrote ${ANSWER_MEMBERS_PATH}`);
