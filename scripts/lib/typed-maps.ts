/**
 * openapi-typescript types a map (`additionalProperties: V`) as `{ [key: string]: V }`, so a misspelt key compiles.
 * A map whose document names its keys (`propertyNames.enum`, as the limit values do) is typed here as an
 * object of those keys, each optional: the same rule the server checks, refused by the compiler too.
 */
import ts from "typescript";

interface MapSchema {
  propertyNames?: { enum?: unknown[] };
  additionalProperties?: boolean | { type?: string };
}

export function typedMapTransform(schema: unknown): ts.TypeNode | undefined {
  const { propertyNames, additionalProperties: value } = (schema ?? {}) as MapSchema;
  const keys = propertyNames?.enum;
  if (!Array.isArray(keys) || typeof value !== "object") return undefined;
  if (!["integer", "number"].includes(value.type ?? "")) return undefined;
  const number = ts.factory.createKeywordTypeNode(ts.SyntaxKind.NumberKeyword);
  return ts.factory.createTypeLiteralNode(
    keys
      .filter((k): k is string => typeof k === "string")
      .map((k) =>
        ts.factory.createPropertySignature(
          undefined,
          ts.factory.createStringLiteral(k),
          ts.factory.createToken(ts.SyntaxKind.QuestionToken),
          number,
        ),
      ),
  );
}
