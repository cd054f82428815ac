/**
 * The API calls the resource commands make, one function each, so the commands hold no URLs: the developer
 * API with the account's key, the control plane (review, installs) with the admin token when there is one.
 */

import type { ReviewedVersion } from "../../src/emulator/model";
import type {
  CreateExtensionInput,
  Extension,
  ExtensionCreated,
  ExtensionListItem,
  UpdateExtensionInput,
} from "../../src/extensions/model";
import type { InstallStats } from "../../src/installs/model";
import type { LimitsResponse } from "../../src/limits/model";
import type { VersionListItem } from "../../src/versions/model";
import { requestJson } from "./http";
import type { ApiTarget, ServerTarget } from "./target";

export type Limits = LimitsResponse;

const seg = encodeURIComponent;

export function developerCalls({ endpoints, apiKey }: ApiTarget) {
  const api = endpoints.baseUrl;
  const opts = { token: apiKey };
  return {
    listExtensions: () => requestJson<{ extensions: ExtensionListItem[] }>(`${api}/extensions`, opts),
    createExtension: (json: CreateExtensionInput) =>
      requestJson<ExtensionCreated>(`${api}/extensions`, { ...opts, method: "POST", json }),
    getExtension: (id: string) => requestJson<Extension>(`${api}/extensions/${seg(id)}`, opts),
    updateExtension: (id: string, json: UpdateExtensionInput) =>
      requestJson<Extension>(`${api}/extensions/${seg(id)}`, { ...opts, method: "PATCH", json }),
    deleteExtension: (id: string) => requestJson<void>(`${api}/extensions/${seg(id)}`, { ...opts, method: "DELETE" }),
    listVersions: (id: string) =>
      requestJson<{ versions: VersionListItem[] }>(`${api}/extensions/${seg(id)}/versions`, opts),
    installs: (id: string) => requestJson<InstallStats>(`${api}/extensions/${seg(id)}/installs`, opts),
    limits: (id: string) => requestJson<Limits>(`${api}/extensions/${seg(id)}/limits`, opts),
  };
}

export function controlCalls({ endpoints, adminToken }: ServerTarget) {
  const admin = endpoints.adminUrl;
  const opts = { token: adminToken };
  return {
    approveVersion: (id: string) =>
      requestJson<ReviewedVersion>(`${admin}/versions/${seg(id)}/approve`, { ...opts, method: "POST" }),
    rejectVersion: (id: string, reason: string) =>
      requestJson<ReviewedVersion>(`${admin}/versions/${seg(id)}/reject`, {
        ...opts,
        method: "POST",
        json: { reason },
      }),
    addInstalls: (id: string, json: { count: number; versionId?: string }) =>
      requestJson<InstallStats>(`${admin}/extensions/${seg(id)}/installs`, { ...opts, method: "POST", json }),
  };
}
