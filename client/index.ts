/**
 * The one client of the emulator's HTTP API, typed by client/schema.d.ts (generated from the OpenAPI
 * document: `npm run client:generate`). The CLI, the dashboard and both test helpers call the server
 * through it. It imports nothing from the server: it runs in Node, Bun and the browser.
 *
 *   const api = createApiClient({ baseUrl: "http://127.0.0.1:4780", apiKey });
 *   const { extensions } = unwrap(await api.GET("/developer/v1/extensions"));
 */
import createClient, { type Client, type Middleware } from "openapi-fetch";
import { PathParameterError, rememberOrigin } from "./errors";
import type { paths } from "./schema";

export { characterCount } from "../common/text/text-length";
export { ApiCallError, type CallResult, PathParameterError, unwrap } from "./errors";
export { type ReadEventsOptions, readEvents } from "./events";
export type * from "./models";
export type { components, operations, paths } from "./schema";
export { type BundleStream, type VersionUpload, type VersionUploadInput, versionUpload } from "./upload";

type WithPrefix<P, Prefix extends string> = {
  [K in keyof P as K extends `${Prefix}${string}` ? K : never]: P[K];
};

/** The developer API (`/developer/v1/…`, and the limits path the spec gives the deploy tool). */
export type DeveloperPaths = WithPrefix<paths, "/developer/v1/"> & WithPrefix<paths, "/v1/developer/">;
/** The emulator's control plane (`/_emulator/…`) and `/healthz`. */
export type ControlPaths = WithPrefix<paths, "/_emulator/"> & Pick<paths, "/healthz">;

export type ApiClient = Client<DeveloperPaths>;
export type AdminClient = Client<ControlPaths>;

/** What the clients call instead of the global fetch (a test's, a proxy's). */
export type FetchFunction = (request: Request) => Promise<Response>;

export interface ApiClientOptions {
  /** The server's origin, e.g. `http://127.0.0.1:4780`; `""` in a page served by the emulator itself. */
  baseUrl: string;
  /** A developer API key, sent as `Authorization: Bearer …`. */
  apiKey: string;
  /**
   * Sent as `X-Ext-Client` on every request. The request log records the value `dashboard` (the emulator's
   * dashboard marks its own calls so; the CLI acts with the same key and does not); any other value is not recorded.
   */
  clientName?: string;
  fetch?: FetchFunction;
}

export interface AdminClientOptions {
  /** The server's origin, e.g. `http://127.0.0.1:4780`; `""` in a page served by the emulator itself. */
  url: string;
  /** The control plane's token (required on every bind unless the server opened it); a function is asked before each request. */
  adminToken?: string | null | (() => string | null | undefined);
  fetch?: FetchFunction;
  /**
   * The dashboard's session secret (from its login), sent as `X-Ext-Session` when there is no admin
   * token; a function is asked before each request. No cookie is ever sent.
   */
  session?: () => string | null | undefined;
}

/** The header the dashboard's session secret travels in. */
export const SESSION_HEADER = "x-ext-session";

/** `http://host:port` from an origin, or from a URL ending in one of the API's own prefixes. */
function origin(url: string): string {
  return url.replace(/\/+$/, "").replace(/\/(developer\/v1|_emulator)$/, "");
}

const recordOrigin: Middleware = {
  onResponse({ request, response }) {
    rememberOrigin(request, response);
  },
};

/**
 * Every parameter the path names is given: one that is not (undefined, null or "") is refused before anything
 * is sent, instead of `{versionId}` travelling literally in the URL.
 */
const pathParametersGiven: Middleware = {
  onRequest({ request, schemaPath, params }) {
    const given = params.path as Record<string, unknown> | undefined;
    for (const [, name] of schemaPath.matchAll(/\{([^{}]+)\}/g)) {
      const value = given?.[name!];
      if (value === undefined || value === null || value === "")
        throw new PathParameterError(request.method, schemaPath, name!, value);
    }
  },
};

function bearer(token: () => string | null | undefined): Middleware {
  return {
    onRequest({ request }) {
      const value = token();
      if (value) request.headers.set("authorization", `Bearer ${value}`);
    },
  };
}

export function createApiClient(options: ApiClientOptions): ApiClient {
  const client = createClient<DeveloperPaths>({
    baseUrl: origin(options.baseUrl),
    // Keys travel in a header only: no cookie is ever needed or sent.
    credentials: "omit",
    ...(options.clientName ? { headers: { "x-ext-client": options.clientName } } : {}),
    ...(options.fetch ? { fetch: options.fetch } : {}),
  });
  client.use(
    pathParametersGiven,
    bearer(() => options.apiKey),
    recordOrigin,
  );
  return client;
}

function session(secret: () => string | null | undefined): Middleware {
  return {
    onRequest({ request }) {
      const value = request.headers.has("authorization") ? null : secret();
      if (value) request.headers.set(SESSION_HEADER, value);
    },
  };
}

export function createAdminClient(options: AdminClientOptions): AdminClient {
  const token = options.adminToken;
  const client = createClient<ControlPaths>({
    baseUrl: origin(options.url),
    credentials: "omit",
    ...(options.fetch ? { fetch: options.fetch } : {}),
  });
  client.use(pathParametersGiven, bearer(typeof token === "function" ? token : () => token));
  if (options.session) client.use(session(options.session));
  client.use(recordOrigin);
  return client;
}
