/** What every control-plane route shares: the OpenAPI tag, the security note and the errors it can answer. */
import { errorResponses } from "../errors/model";

export const tags = ["Emulator"];
/** Open on loopback without a header; elsewhere the admin token (see admin-auth.ts). */
export const security: Record<string, string[]>[] = [{}, { adminToken: [] }];
/** Every control-plane route can answer 401 (admin gate) and 500, plus what it names. */
export function controlErrors<S extends number>(...statuses: S[]) {
  return errorResponses<S | 401 | 500>(401, 500, ...statuses);
}

export { noContent } from "../http/responses";
