/**
 * The API calls the resource commands make, one function each, so the commands hold no paths: the developer
 * API with the account's key, the control plane (review, installs) with the admin token when there is one.
 */
import type { ApiKeyCreate, ExtensionCreate, ExtensionUpdate, InstallChange } from "../../../client";
import { adminClient, apiClient, call } from "../../calls/http";
import type { ApiTarget, ServerTarget } from "./target";

export function developerCalls({ endpoints, apiKey }: ApiTarget) {
  const api = apiClient(endpoints, apiKey);
  const ext = (id: string) => ({ params: { path: { id } } });
  return {
    listExtensions: () => call(() => api.GET("/developer/v1/extensions")),
    createExtension: (body: ExtensionCreate) => call(() => api.POST("/developer/v1/extensions", { body })),
    getExtension: (id: string) => call(() => api.GET("/developer/v1/extensions/{id}", ext(id))),
    updateExtension: (id: string, body: ExtensionUpdate) =>
      call(() => api.PATCH("/developer/v1/extensions/{id}", { ...ext(id), body })),
    deleteExtension: (id: string) => call(() => api.DELETE("/developer/v1/extensions/{id}", ext(id))),
    listVersions: (id: string) => call(() => api.GET("/developer/v1/extensions/{id}/versions", ext(id))),
    installs: (id: string) => call(() => api.GET("/developer/v1/extensions/{id}/installs", ext(id))),
    limits: (id: string) => call(() => api.GET("/developer/v1/extensions/{id}/limits", ext(id))),
  };
}

export function controlCalls({ endpoints, adminToken }: ServerTarget) {
  const admin = adminClient(endpoints, adminToken);
  const version = (versionId: string) => ({ params: { path: { versionId } } });
  return {
    approveVersion: (id: string) => call(() => admin.POST("/_emulator/versions/{versionId}/approve", version(id))),
    rejectVersion: (id: string, reason: string) =>
      call(() => admin.POST("/_emulator/versions/{versionId}/reject", { ...version(id), body: { reason } })),
    addInstalls: (id: string, body: InstallChange) =>
      call(() => admin.POST("/_emulator/extensions/{id}/installs", { params: { path: { id } }, body })),
    listAccounts: () => call(() => admin.GET("/_emulator/accounts")),
    listKeys: (accountId: string) =>
      call(() => admin.GET("/_emulator/accounts/{accountId}/keys", { params: { path: { accountId } } })),
    createKey: (accountId: string, body: ApiKeyCreate) =>
      call(() => admin.POST("/_emulator/accounts/{accountId}/keys", { params: { path: { accountId } }, body })),
  };
}
