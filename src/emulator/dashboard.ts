/**
 * Control-plane reads the dashboard needs and no test had asked for: the accounts, the dashboard's own key
 * per account, the review queue, a version's bundle and its sounds, and limits with their usage.
 */
import { Elysia } from "elysia";
import { AccountList, AccountParams, DashboardKey } from "../accounts/model";
import { apiAuth } from "../http/auth";
import { t } from "../http/schema";
import { LimitUsage, LimitUsageQuery } from "../limits/usage-model";
import type { Services } from "../runtime";
import { BundleContents, ReviewQueue, SoundBytes } from "../versions/admin-model";
import { VersionIdParams } from "./model";
import { controlResponses, security, tags } from "./route-kit";

/** The control plane's routes for the dashboard's pages (the dashboard's own files: src/dashboard/routes.ts). */
export function dashboardDataRoutes(services: Services) {
  const { accounts, dashboardKeys, bundleContents, limitUsage, reviewQueue } = services;
  return new Elysia()
    .use(apiAuth)
    .get("/accounts", () => ({ accounts: accounts.listAccounts() }), {
      response: controlResponses({ 200: AccountList }),
      detail: {
        operationId: "listAccounts",
        tags,
        security,
        summary: "Every account, with its extension and active key counts",
      },
    })
    .post("/accounts/:accountId/dashboard-key", ({ params }) => dashboardKeys.forAccount(params.accountId), {
      params: AccountParams,
      response: controlResponses(
        { 200: DashboardKey },
        "malformed_path",
        "account_not_found",
        "limit_exceeded",
        "validation_error",
      ),
      detail: {
        operationId: "getDashboardKey",
        tags,
        security,
        summary: "The dashboard's own API key for an account",
        description:
          'An ordinary key named "dashboard" with scope *, made on first use (it counts against the 20 active keys and shows in the key list) and reused while it is active; the dashboard calls the developer API with it when it acts as the account. 422 limit_exceeded when the account already has its maximum of active keys.',
      },
    })
    .get("/review-queue", () => ({ versions: reviewQueue.listPending() }), {
      response: controlResponses({ 200: ReviewQueue }),
      detail: {
        operationId: "listReviewQueue",
        tags,
        security,
        summary: "Pending versions of every account, oldest submission first",
      },
    })
    .get("/versions/:versionId/bundle", ({ params }) => bundleContents.list(params.versionId), {
      params: VersionIdParams,
      response: controlResponses({ 200: BundleContents }, "malformed_path", "version_not_found"),
      detail: {
        operationId: "getVersionBundle",
        tags,
        security,
        summary: "A version's bundle: file tree, manifest, warnings",
        description:
          "Read from the stored archive with the upload's safety caps; at most 5,000 files are listed (truncated says so).",
      },
    })
    .get(
      "/versions/:versionId/sound",
      async ({ params, query }) => {
        const { bytes, contentType } = await bundleContents.sound(params.versionId, query.path);
        return new Response(bytes, {
          headers: {
            "content-type": contentType,
            "x-content-type-options": "nosniff",
            "cache-control": "no-store",
            "content-disposition": "inline",
          },
        });
      },
      {
        params: VersionIdParams,
        query: t.Object(
          { path: t.String({ minLength: 1, maxLength: 1024, description: "Archive path of a sound file" }) },
          { additionalProperties: false },
        ),
        response: controlResponses(
          { 200: SoundBytes },
          "malformed_path",
          "version_not_found",
          "bundle_file_not_found",
          "payload_too_large",
          "validation_error",
        ),
        detail: {
          operationId: "getVersionSound",
          tags,
          security,
          summary: "One sound of a version's bundle, for the player",
          description:
            "Audio files only (by extension: .mp3 .wav .ogg .oga .webm .m4a .aac .flac), up to 10 MB; anything else is a 404.",
        },
      },
    )
    .get("/limits", ({ query }) => limitUsage.forScope(query.accountId, query.extensionId ?? null), {
      query: LimitUsageQuery,
      response: controlResponses({ 200: LimitUsage }, "account_not_found", "extension_not_found", "validation_error"),
      detail: {
        operationId: "listLimitUsage",
        tags,
        security,
        summary: "Every limit of a scope with its resolved value, source, hard maximum and usage",
        description:
          "The developer limits page. Scope: the account (extensionId absent) or one of its extensions. Usage where the emulator counts it: extensions, active API keys, team members (owner included); with an extension also versions (archived ones aside), secrets and the sounds of its current version.",
      },
    });
}
