import { Elysia } from "elysia";
import { apiAuth } from "../http/auth";
import { t } from "../http/schema";
import type { OverrideScope, OverrideService } from "../limits/overrides";
import { OverridesBody, OverridesView } from "../limits/overrides-model";
import { controlResponses, NoContent, noContent, security, tags } from "./route-kit";

/** PUT / GET / DELETE for one scope: /overrides/extensions/:id or /overrides/accounts/:id. */
function scopeRoutes(overrides: OverrideService, scope: OverrideScope, segment: string) {
  const params = t.Object({ id: t.String({ description: scope === "extension" ? "Extension id" : "Account id" }) });
  const what = scope === "extension" ? "an extension (priority 1)" : "a developer account (priority 2)";
  const Scope = scope === "extension" ? "Extension" : "Account";
  const notFound = scope === "extension" ? "extension_not_found" : "account_not_found";
  return new Elysia({ prefix: `/overrides/${segment}` })
    .use(apiAuth)
    .put("/:id", ({ params, body }) => overrides.replace(scope, params.id, body), {
      json: true,
      params,
      body: OverridesBody,
      response: controlResponses(
        { 200: OverridesView },
        "malformed_path",
        notFound,
        "unsupported_media_type",
        "payload_too_large",
        "validation_error",
      ),
      detail: {
        tags,
        security,
        operationId: `set${Scope}Overrides`,
        summary: `Set the limit overrides of ${what}`,
        description:
          "The body is a map of limit key → value and replaces the scope's overrides. Unknown keys and values above a hard limit are a 422.",
      },
    })
    .get("/:id", ({ params }) => overrides.get(scope, params.id), {
      params,
      response: controlResponses({ 200: OverridesView }, "malformed_path", notFound),
      detail: { tags, security, operationId: `get${Scope}Overrides`, summary: `Read the limit overrides of ${what}` },
    })
    .delete(
      "/:id",
      ({ params }) => {
        overrides.remove(scope, params.id);
        return noContent();
      },
      {
        params,
        response: controlResponses(
          { 204: NoContent("Overrides removed; defaults apply again") },
          "malformed_path",
          notFound,
        ),
        detail: {
          tags,
          security,
          operationId: `delete${Scope}Overrides`,
          summary: `Remove the limit overrides of ${what}`,
        },
      },
    );
}

export function overrideRoutes(overrides: OverrideService) {
  return new Elysia()
    .use(scopeRoutes(overrides, "extension", "extensions"))
    .use(scopeRoutes(overrides, "account", "accounts"));
}
