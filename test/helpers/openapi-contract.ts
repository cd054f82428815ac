/**
 * Checks real requests and responses against an OpenAPI 3.1 document: the document itself against the
 * official 3.1 schema (@seriousme/openapi-schema-validator), then each body and header against the
 * operation's schemas with Ajv's JSON Schema 2020-12 validator (the dialect OpenAPI 3.1 uses).
 */
import { Validator } from "@seriousme/openapi-schema-validator";
import Ajv2020 from "ajv/dist/2020";
import addFormats from "ajv-formats";

const DOC_ID = "urn:ext:openapi";

export interface Operation {
  method: string;
  template: string;
  operationId: string;
  op: any;
}

const pointer = (...parts: string[]) => `#/${parts.map((p) => p.replace(/~/g, "~0").replace(/\//g, "~1")).join("/")}`;

export class OpenApiContract {
  readonly operations: Operation[];
  private readonly ajv: Ajv2020;
  private readonly compiled = new Map<string, ReturnType<Ajv2020["compile"]>>();

  private constructor(readonly doc: any) {
    this.ajv = new Ajv2020({ strict: false, allErrors: true });
    addFormats(this.ajv);
    // OpenAPI's own format for file contents; any string.
    this.ajv.addFormat("binary", true);
    this.ajv.addSchema({ ...doc, $id: DOC_ID });
    this.operations = Object.entries(doc.paths as Record<string, Record<string, any>>).flatMap(([template, item]) =>
      Object.entries(item).map(([method, op]) => ({ method, template, operationId: op.operationId, op })),
    );
  }

  /** Throws with the validator's findings when the document is not valid OpenAPI 3.1. */
  static async create(doc: unknown): Promise<OpenApiContract> {
    const result = await new Validator().validate(structuredClone(doc) as never);
    if (!result.valid) throw new Error(`not a valid OpenAPI document: ${JSON.stringify(result.errors).slice(0, 2000)}`);
    return new OpenApiContract(doc);
  }

  /** The operation a request hits: the template with literal segments preferred over parameters. */
  find(method: string, path: string): Operation | undefined {
    const segments = path.split("?")[0]!.split("/");
    const candidates = this.operations.filter((o) => {
      if (o.method !== method.toLowerCase()) return false;
      const t = o.template.split("/");
      return (
        t.length === segments.length && t.every((s, i) => (s.startsWith("{") ? segments[i] !== "" : s === segments[i]))
      );
    });
    const literals = (o: Operation) => o.template.split("/").filter((s) => !s.startsWith("{")).length;
    return candidates.sort((a, b) => literals(b) - literals(a))[0];
  }

  private check(ref: string, value: unknown): string[] {
    let validate = this.compiled.get(ref);
    if (!validate) {
      validate = this.ajv.compile({ $ref: DOC_ID + ref });
      this.compiled.set(ref, validate);
    }
    return validate(value)
      ? []
      : (validate.errors ?? []).map((e) => `${e.instancePath || "/"} ${e.message} ${JSON.stringify(e.params)}`);
  }

  /** Problems of a value against a named model of the document (`components.schemas[name]`). */
  modelProblems(name: string, value: unknown): string[] {
    if (!this.doc.components?.schemas?.[name]) return [`no schema named ${name}`];
    return this.check(pointer("components", "schemas", name), value).map((p) => `${name}: ${p}`);
  }

  /** Every `examples` value of every schema of the document, checked against that schema. */
  exampleProblems(): { checked: number; problems: string[] } {
    let checked = 0;
    const problems: string[] = [];
    const walk = (node: unknown, path: string[]): void => {
      if (Array.isArray(node)) {
        for (const [i, v] of node.entries()) walk(v, [...path, String(i)]);
        return;
      }
      if (!node || typeof node !== "object") return;
      const record = node as Record<string, unknown>;
      if (Array.isArray(record.examples) && path.at(-1) !== "properties") {
        for (const example of record.examples) {
          checked++;
          problems.push(...this.check(pointer(...path), example).map((p) => `${pointer(...path)}: ${p}`));
        }
      }
      for (const [k, v] of Object.entries(record)) if (k !== "examples") walk(v, [...path, k]);
    };
    walk(this.doc, []);
    return { checked, problems };
  }

  /** Problems of a request body sent as `mediaType` (a multipart form as its parsed fields). */
  requestProblems(o: Operation, mediaType: string, body: unknown): string[] {
    const content = o.op.requestBody?.content;
    if (!content?.[mediaType]) return [`${o.operationId}: no request body of type ${mediaType} is documented`];
    return this.check(pointer("paths", o.template, o.method, "requestBody", "content", mediaType, "schema"), body);
  }

  /** Problems of a response: its status documented, its body, its documented headers. */
  responseProblems(o: Operation, status: number, headers: Headers, body: unknown, text: string): string[] {
    const response = o.op.responses?.[String(status)];
    if (!response) return [`${o.operationId}: status ${status} is not documented`];
    const problems: string[] = [];
    if (!response.content) {
      if (text !== "") problems.push(`${o.operationId} ${status}: a body where none is documented`);
    } else {
      const type = (headers.get("content-type") ?? "").split(";")[0]!.trim();
      if (!response.content[type]) problems.push(`${o.operationId} ${status}: content type ${type} is not documented`);
      // A JSON body is checked parsed; any other (an event stream, audio bytes) as the text it is.
      else
        problems.push(
          ...this.check(
            pointer("paths", o.template, o.method, "responses", String(status), "content", type, "schema"),
            type === "application/json" ? body : text,
          ),
        );
    }
    for (const [name, header] of Object.entries((response.headers ?? {}) as Record<string, any>)) {
      const raw = headers.get(name);
      if (raw === null) continue;
      const value = header.schema?.type === "integer" && /^-?\d+$/.test(raw) ? Number(raw) : raw;
      problems.push(
        ...this.check(
          pointer("paths", o.template, o.method, "responses", String(status), "headers", name, "schema"),
          value,
        ).map((p) => `header ${name}: ${p}`),
      );
    }
    return problems.map((p) => `${o.method.toUpperCase()} ${o.template} → ${status}: ${p}`);
  }
}
