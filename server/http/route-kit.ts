/**
 * One kit for every route's declaration, so what a route can answer and what its OpenAPI document says are made
 * from the same words. A route declares its operation (id, summary, description), its success answers, its
 * parameters, query and body, and the refusals of its own domain; the kit adds what follows from the rest:
 *  - a path parameter: 400 `malformed_path` (the pre-routing guard), and 422 `validation_error` when a
 *    parameter's schema can refuse a string;
 *  - a query: 422 `validation_error` when its schema can refuse one;
 *  - a JSON body (`json: true`): 415 for another Content-Type, 413 past the cap, 422 for a body that is not JSON
 *    or fails its schema;
 *  - no body: whatever is sent is ignored — never read, parsed or validated (`parse: "none"`; the answer step
 *    drops it as it arrives), so an operation without a body answers as it would without one. A developer-API
 *    read (`apiRead`, a GET) goes without `parse: "none"`: the framework reads the body of no GET, and with a
 *    parser named Elysia composes the route to await it (server/http/pre-routing.ts);
 *  - a body the route reads itself (`ownBody`: the multipart upload): not parsed by the framework either, and
 *    documented as the route describes it.
 * Each plane adds its own part: `apiRoute` below for the developer API (its scope, its tag, the rate window's
 * headers), server/control-plane/route-kit.ts for the control plane.
 */
import type { TSchema } from "elysia";
import type { Scope } from "../../common/scopes";
import { type ErrorCode, JSON_BODY_ERRORS } from "../errors/codes";
import { apiErrors, apiResponses } from "./responses";

/** What a route declares beside its operation's id and summary; the kit derives the rest. */
export interface RouteDeclaration<S, P, Q, B> {
  description?: string;
  /** The success answers by status. */
  answers: S;
  params?: P;
  query?: Q;
  /** A JSON body; a route without one ignores whatever is sent. */
  body?: B;
  /** A body the handler reads itself, as the document describes it (a route with one declares no `body`). */
  ownBody?: { mediaType: string; schema: object };
  /** The refusals of the route's own domain (404s, 409s, limits…), beyond what the kit derives. */
  refusals?: readonly ErrorCode[];
}

/** The operation as the document names it: its id and its one-line summary. */
export interface Operation {
  operationId: string;
  summary: string;
}

type AnyDeclaration = RouteDeclaration<unknown, unknown, unknown, unknown>;
type Part<K extends string, V> = V extends TSchema ? { [k in K]: V } : unknown;

/** The route options the kit makes of a declaration, typed so that the handler sees its params, query and body. */
export type RouteOptions<P, Q, B, R, D> = Part<"params", P> &
  Part<"query", Q> &
  (B extends TSchema ? { json: true; body: B } : { parse: "none" }) & { response: R; detail: D };

const STRING_BOUNDS = ["minLength", "maxLength", "pattern", "format", "enum", "const"];

/** Whether a value read from a path or query can be refused by `schema` (a plain string takes any). */
function refusesSome(schema: TSchema): boolean {
  return schema.type !== "string" || STRING_BOUNDS.some((key) => key in schema);
}

const propertiesOf = (schema: TSchema) => Object.values((schema.properties ?? {}) as Record<string, TSchema>);

/**
 * The refusals a declaration implies, then its own. A path parameter is always there (the router matched it);
 * a query's parameters may be missing or unknown.
 */
export function impliedRefusals(declaration: AnyDeclaration): ErrorCode[] {
  const params = declaration.params as TSchema | undefined;
  const query = declaration.query as TSchema | undefined;
  const paramRefuses = params !== undefined && propertiesOf(params).some(refusesSome);
  const queryRefuses =
    query !== undefined &&
    (query.additionalProperties === false ||
      (query.required?.length ?? 0) > 0 ||
      propertiesOf(query).some(refusesSome));
  return [
    ...(params ? (["malformed_path"] as const) : []),
    ...(paramRefuses || queryRefuses ? (["validation_error"] as const) : []),
    ...(declaration.body ? JSON_BODY_ERRORS : []),
    ...(declaration.refusals ?? []),
  ];
}

/** The document's words for an operation, as its declaration gives them; `extra` is the plane's (tags, security). */
function detailOf<E extends object>({ operationId, summary }: Operation, declaration: AnyDeclaration, extra: E) {
  const { description, ownBody } = declaration;
  return {
    ...extra,
    operationId,
    summary,
    ...(description === undefined ? {} : { description }),
    ...(ownBody
      ? {
          requestBody: {
            required: true,
            content: { [ownBody.mediaType]: { schema: ownBody.schema as unknown as Record<string, unknown> } },
          },
        }
      : {}),
  };
}

/** A declaration as route options: `response` made by the plane, `detail` with the plane's own words. */
export function routeOptions<S, P, Q, B, R, E extends object>(
  operation: Operation,
  declaration: RouteDeclaration<S, P, Q, B>,
  response: R,
  extra: E,
): RouteOptions<P, Q, B, R, ReturnType<typeof detailOf<E>>> {
  const { params, query, body } = declaration;
  return {
    ...(params ? { params } : {}),
    ...(query ? { query } : {}),
    ...(body ? { json: true, body } : { parse: "none" }),
    // None at all when every success is a ready answer (readyAnswer): Elysia then sets up no response check.
    ...(Object.keys(response as object).length > 0 ? { response } : {}),
    detail: detailOf(operation, declaration as AnyDeclaration, extra),
  } as unknown as RouteOptions<P, Q, B, R, ReturnType<typeof detailOf<E>>>;
}

/** A plane's kit is generic in the success answers (`Schemas`) and in its params, query and body (each `Maybe`). */
export type Schemas = Record<number, TSchema>;
export type Maybe = TSchema | undefined;

/**
 * A developer-API route's options: the operation listed under `tag`, the key's scope it needs (the `auth` macro),
 * and what every authenticated route can answer (401, 403, 429, 500) with the rate window's headers
 * (server/http/responses.ts).
 */
export function apiRoute<
  S extends Schemas,
  P extends Maybe = undefined,
  Q extends Maybe = undefined,
  B extends Maybe = undefined,
>(tag: string, operationId: string, summary: string, declaration: RouteDeclaration<S, P, Q, B> & { auth: Scope }) {
  const { response, detail } = apiResponses(declaration.answers);
  const errors = apiErrors(impliedRefusals(declaration));
  return {
    auth: declaration.auth,
    ...routeOptions({ operationId, summary }, declaration, response, { tags: [tag], ...detail, ...errors }),
  };
}

/**
 * A developer-API read (a GET): `apiRoute`'s options without `parse: "none"`, which Elysia would compose into an
 * awaiting handler, for a body it never reads on a GET anyway.
 */
export function apiRead<S extends Schemas, P extends Maybe = undefined, Q extends Maybe = undefined>(
  tag: string,
  operationId: string,
  summary: string,
  declaration: RouteDeclaration<S, P, Q, undefined> & { auth: Scope },
) {
  const { parse: _bodyIgnored, ...options } = apiRoute(tag, operationId, summary, declaration);
  return options;
}
