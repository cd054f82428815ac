/**
 * Control-plane reads the dashboard needs and no test had asked for: the accounts, the dashboard's own key
 * per account, the review queue, a version's bundle and its sounds, and limits with their usage.
 */
import { Elysia } from "elysia";
import { apiAuth } from "../http/auth";
import { AccountList, AccountParams, DashboardKey } from "../resources/accounts/model";
import { LimitUsage, LimitUsageQuery } from "../resources/limits/usage-model";
import { BundleContents, ReviewQueue, SoundBytes } from "../resources/versions/admin-model";
import { VersionIdParams } from "../runtime/control-state/model";
import type { Services } from "../runtime/runtime";
import { t } from "../schema/schema";
import { controlRoute } from "./route-kit";

/** The control plane's routes for the dashboard's pages (the dashboard's own files: server/dashboard/routes.ts). */
export function dashboardDataRoutes(services: Services) {
  const { accounts, dashboardKeys, bundleContents, limitUsage, reviewQueue } = services;
  return new Elysia()
    .use(apiAuth)
    .get(
      "/accounts",
      () => ({ accounts: accounts.listAccounts() }),
      controlRoute("listAccounts", "Every account, with its extension and active key counts", {
        answers: { 200: AccountList },
      }),
    )
    .post(
      "/accounts/:accountId/dashboard-key",
      ({ params }) => dashboardKeys.forAccount(params.accountId),
      controlRoute("getDashboardKey", "The dashboard's own API key for an account", {
        description:
          'An ordinary key named "dashboard" with scope *, made on first use (it counts against the 20 active keys and shows in the key list) and reused while it is active; the dashboard calls the developer API with it when it acts as the account. 422 limit_exceeded when the account already has its maximum of active keys.',
        params: AccountParams,
        answers: { 200: DashboardKey },
        refusals: ["account_not_found", "limit_exceeded"],
      }),
    )
    .get(
      "/review-queue",
      () => ({ versions: reviewQueue.listPending() }),
      controlRoute("listReviewQueue", "Pending versions of every account, oldest submission first", {
        answers: { 200: ReviewQueue },
      }),
    )
    .get(
      "/versions/:versionId/bundle",
      ({ params }) => bundleContents.list(params.versionId),
      controlRoute("getVersionBundle", "A version's bundle: file tree, manifest, warnings", {
        description:
          "Read from the stored archive with the upload's safety caps; at most 5,000 files are listed (truncated says so).",
        params: VersionIdParams,
        answers: { 200: BundleContents },
        refusals: ["version_not_found"],
      }),
    )
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
      controlRoute("getVersionSound", "One sound of a version's bundle, for the player", {
        description:
          "Audio files only (by extension: .mp3 .wav .ogg .oga .webm .m4a .aac .flac), up to 10 MB; anything else is a 404.",
        params: VersionIdParams,
        query: t.Object(
          { path: t.String({ minLength: 1, maxLength: 1024, description: "Archive path of a sound file" }) },
          { additionalProperties: false },
        ),
        answers: { 200: SoundBytes },
        refusals: ["version_not_found", "bundle_file_not_found", "payload_too_large"],
      }),
    )
    .get(
      "/limits",
      ({ query }) => limitUsage.forScope(query.accountId, query.extensionId ?? null),
      controlRoute("listLimitUsage", "Every limit of a scope with its resolved value, source, hard maximum and usage", {
        description:
          "The developer limits page. Scope: the account (extensionId absent) or one of its extensions. Usage where the emulator counts it: extensions, active API keys, team members (owner included); with an extension also versions (archived ones aside), secrets and the sounds of its current version.",
        query: LimitUsageQuery,
        answers: { 200: LimitUsage },
        refusals: ["account_not_found", "extension_not_found"],
      }),
    );
}
