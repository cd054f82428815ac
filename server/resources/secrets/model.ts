/** Secret schemas: request validation, response shapes, the OpenAPI document and tests all use these. */
import type { Static } from "elysia";
import { SECRET_NAME_PATTERN, SECRET_VALUE_MAX_BYTES } from "../../../common/api-rules";
import { named, t } from "../../schema/schema";

export const SecretName = t.String({
  pattern: SECRET_NAME_PATTERN,
  description: "Secret name: a letter or _, then up to 127 letters, digits or _",
});

export const SecretParams = t.Object({
  id: t.String({ description: "Extension id (ext_…)" }),
  key: SecretName,
});

// No `examples` with a realistic value: the OpenAPI document must not teach anyone to paste a real secret.
export const PutSecretBody = t.Object(
  {
    value: t.String({
      minLength: 1,
      maxLength: SECRET_VALUE_MAX_BYTES,
      description: "The secret value, 1 byte to 64 KB of UTF-8. Write-only: never returned.",
    }),
  },
  { additionalProperties: false, ...named("SecretValue") },
);

export const SecretKeyList = t.Object(
  {
    keys: t.Array(t.String({ examples: ["API_TOKEN"] }), {
      description: "Secret names, sorted; values are never returned",
    }),
  },
  { additionalProperties: false, ...named("SecretKeys") },
);
export type SecretKeyList = Static<typeof SecretKeyList>;
