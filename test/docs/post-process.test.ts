/** The post-processing of the generated document, on small documents made here. */
import { describe, expect, test } from "bun:test";
import { DocumentError, postProcessDocument } from "../../server/docs/post-process";

const Thing = { $id: "#/components/schemas/Thing", type: "object", properties: { n: { type: "integer" } } };
const ok = (schema: unknown) => ({ description: "ok", content: { "application/json": { schema } } });

describe("postProcessDocument", () => {
  test("moves every named schema to components and refers to it; the input is left as it was", () => {
    const input = {
      paths: {
        "/a": {
          get: {
            responses: {
              200: ok({ type: "object", properties: { list: { type: "array", items: Thing }, one: Thing } }),
            },
          },
        },
      },
      components: { schemas: {} },
    };
    const before = structuredClone(input);
    const doc: any = postProcessDocument(input);
    expect(input).toEqual(before);
    expect(doc.components.schemas).toEqual({ Thing: { type: "object", properties: { n: { type: "integer" } } } });
    const schema = doc.paths["/a"].get.responses[200].content["application/json"].schema;
    expect(schema.properties.one).toEqual({ $ref: "#/components/schemas/Thing" });
    expect(schema.properties.list.items).toEqual({ $ref: "#/components/schemas/Thing" });
  });

  test("named schemas inside named schemas are references too", () => {
    const Outer = { $id: "#/components/schemas/Outer", type: "object", properties: { thing: Thing } };
    const doc: any = postProcessDocument({ paths: { "/a": { get: { responses: { 200: ok(Outer) } } } } });
    expect(doc.components.schemas.Outer.properties.thing).toEqual({ $ref: "#/components/schemas/Thing" });
    expect(Object.keys(doc.components.schemas)).toEqual(["Outer", "Thing"]);
  });

  test("a nullable named schema becomes anyOf [$ref, null], keeping what the union itself said", () => {
    const nullable = { ...Thing, type: ["object", "null"], description: "or nothing" };
    const doc: any = postProcessDocument({
      paths: { "/a": { get: { responses: { 200: ok({ type: "object", properties: { x: nullable, y: Thing } }) } } } },
    });
    const props = doc.paths["/a"].get.responses[200].content["application/json"].schema.properties;
    expect(props.x).toEqual({
      description: "or nothing",
      anyOf: [{ $ref: "#/components/schemas/Thing" }, { type: "null" }],
    });
    expect(doc.components.schemas.Thing).toEqual({ type: "object", properties: { n: { type: "integer" } } });
  });

  test("refuses one name given to two different schemas", () => {
    const other = { ...Thing, properties: { n: { type: "string" } } };
    expect(() =>
      postProcessDocument({ paths: { "/a": { get: { responses: { 200: ok(Thing), 201: ok(other) } } } } }),
    ).toThrow(DocumentError);
  });

  test("a route's ready answers (in its detail) become references to their model, which must be in the document", () => {
    const limit = { type: "integer", minimum: 1 };
    const op = () => ({
      "x-ready-answers": { 200: { model: "#/components/schemas/Thing", headers: { "X-RateLimit-Limit": limit } } },
    });
    const doc: any = postProcessDocument({ paths: { "/a": { get: op() } }, components: { schemas: { Thing } } });
    expect(doc.paths["/a"].get).toEqual({
      responses: {
        200: {
          description: "Response for status 200",
          headers: { "X-RateLimit-Limit": { schema: limit } },
          content: { "application/json": { schema: { $ref: "#/components/schemas/Thing" } } },
        },
      },
    });
    expect(doc.components.schemas.Thing).toEqual({ type: "object", properties: { n: { type: "integer" } } });
    // The model not registered: a reference to nothing is refused, not published.
    expect(() => postProcessDocument({ paths: { "/a": { get: op() } } })).toThrow(
      "The document refers to a model it does not have: Thing",
    );
  });

  test("a route's declared errors (in its detail) become its error responses, after its successes", () => {
    const limit = { type: "integer", minimum: 1 };
    const doc: any = postProcessDocument({
      paths: {
        "/a": {
          get: {
            responses: { 200: ok(Thing) },
            "x-error-responses": {
              404: { codes: ["extension_not_found"], headers: { "X-RateLimit-Limit": limit } },
              401: { codes: ["unauthorized"] },
            },
          },
        },
      },
    });
    const op = doc.paths["/a"].get;
    expect(op["x-error-responses"]).toBeUndefined();
    expect(Object.keys(op.responses)).toEqual(["200", "401", "404"]);
    expect(op.responses[404].description).toBe("Not found: `extension_not_found`");
    expect(op.responses[404].headers).toEqual({ "X-RateLimit-Limit": { schema: limit } });
    expect(op.responses[401].headers).toBeUndefined();
    const schema = op.responses[404].content["application/json"].schema;
    // The one envelope, by reference, narrowed to the status's codes, with an example of each.
    expect(schema.allOf[0]).toEqual({ $ref: "#/components/schemas/Error" });
    expect(schema.allOf[1].properties.error.properties.code).toMatchObject({ enum: ["extension_not_found"] });
    expect(schema.examples).toHaveLength(1);
    expect(doc.components.schemas.Error).toBeDefined();
  });

  test("drops the content of a void response, keeps its description and headers", () => {
    const headers = { "X-RateLimit-Limit": { schema: { type: "integer" } } };
    const doc: any = postProcessDocument({
      paths: {
        "/a": {
          delete: {
            responses: { 204: { description: "Gone", headers, content: { type: "void", description: "Gone" } } },
          },
        },
      },
    });
    expect(doc.paths["/a"].delete.responses[204]).toEqual({ description: "Gone", headers });
  });

  test("documents a coercing query integer as the integer it stands for; leaves other unions alone", () => {
    const coerced = {
      description: "Default 100",
      anyOf: [
        { type: "string", format: "integer", default: 0 },
        { type: "integer", minimum: 1, maximum: 500 },
      ],
    };
    const union = { anyOf: [{ type: "string" }, { type: "integer" }] };
    const doc: any = postProcessDocument({
      paths: {
        "/a": {
          get: {
            parameters: [
              { name: "limit", in: "query", schema: coerced },
              { name: "x", in: "query", schema: union },
            ],
            responses: {},
          },
        },
      },
    });
    expect(doc.paths["/a"].get.parameters[0].schema).toEqual({
      description: "Default 100",
      type: "integer",
      minimum: 1,
      maximum: 500,
    });
    expect(doc.paths["/a"].get.parameters[1].schema).toEqual(union);
  });

  test("documents a coercing path integer as the integer it stands for", () => {
    const coerced = {
      minimum: 1,
      anyOf: [
        { type: "string", format: "integer", default: 0 },
        { type: "integer", minimum: 1 },
      ],
    };
    const doc: any = postProcessDocument({
      paths: {
        "/a/{id}": {
          get: { parameters: [{ name: "id", in: "path", required: true, schema: coerced }], responses: {} },
        },
      },
    });
    expect(doc.paths["/a/{id}"].get.parameters[0].schema).toEqual({ type: "integer", minimum: 1 });
  });

  test("a success served as other media types is documented under each of them, the marker dropped; other content is left alone", () => {
    const stream = { type: "string", description: "events", "x-media-types": ["text/event-stream"] };
    const audio = { type: "string", format: "binary", "x-media-types": ["audio/mpeg", "audio/wav"] };
    const json = { type: "object" };
    const doc: any = postProcessDocument({
      paths: {
        "/s": { get: { responses: { 200: { description: "s", content: { "text/plain": { schema: stream } } } } } },
        "/a": { get: { responses: { 200: { description: "a", content: { "text/plain": { schema: audio } } } } } },
        "/j": { get: { responses: { 200: ok(json) } } },
      },
    });
    expect(doc.paths["/s"].get.responses[200].content).toEqual({
      "text/event-stream": { schema: { type: "string", description: "events" } },
    });
    expect(doc.paths["/a"].get.responses[200].content).toEqual({
      "audio/mpeg": { schema: { type: "string", format: "binary" } },
      "audio/wav": { schema: { type: "string", format: "binary" } },
    });
    expect(doc.paths["/j"].get.responses[200]).toEqual(ok(json));
  });

  test("merges document-only keywords into their schema", () => {
    const name = { type: "string", minLength: 1, "x-document-only": { maxLength: 80 } };
    const doc: any = postProcessDocument({
      paths: {
        "/a": {
          post: {
            requestBody: { content: { "application/json": { schema: { type: "object", properties: { name } } } } },
            responses: {},
          },
        },
      },
    });
    expect(doc.paths["/a"].post.requestBody.content["application/json"].schema.properties.name).toEqual({
      type: "string",
      minLength: 1,
      maxLength: 80,
    });
  });
  test("an open-values field becomes its known values or any other string; other enums are left closed", () => {
    const status = {
      type: "string",
      enum: ["draft", "approved"],
      default: "draft",
      description: "d",
      "x-open-values": true,
    };
    const plain = { type: "string", enum: ["a", "b"] };
    const doc: any = postProcessDocument({
      paths: { "/a": { get: { responses: { 200: ok({ type: "object", properties: { status, plain } }) } } } },
    });
    const props = doc.paths["/a"].get.responses[200].content["application/json"].schema.properties;
    expect(props.status).toEqual({
      description: "d",
      anyOf: [{ type: "string", enum: ["draft", "approved"] }, { type: "string" }],
      "x-known-values": ["draft", "approved"],
    });
    expect(props.plain).toEqual(plain);
  });

  test("a header marked required is documented as required, the marker dropped; others stay optional", () => {
    const headers = {
      "Retry-After": { schema: { type: "integer", "x-required-header": true } },
      "X-Other": { schema: { type: "integer" } },
    };
    const doc: any = postProcessDocument({
      paths: { "/a": { get: { responses: { 429: { description: "slow down", headers } } } } },
    });
    expect(doc.paths["/a"].get.responses[429].headers).toEqual({
      "Retry-After": { schema: { type: "integer" }, required: true },
      "X-Other": { schema: { type: "integer" } },
    });
  });
});
