import { Elysia } from "elysia";
import { apiAuth } from "../http/auth";
import type { OverrideScope, OverrideService } from "../resources/limits/overrides";
import { OverridesBody, OverridesView } from "../resources/limits/overrides-model";
import { t } from "../schema/schema";
import { controlRoute, NoContent, noContent } from "./route-kit";

/** PUT / GET / DELETE for one scope: /overrides/extensions/:id or /overrides/accounts/:id. */
function scopeRoutes(overrides: OverrideService, scope: OverrideScope, segment: string) {
  const params = t.Object({ id: t.String({ description: scope === "extension" ? "Extension id" : "Account id" }) });
  const what = scope === "extension" ? "an extension (priority 1)" : "a developer account (priority 2)";
  const Scope = scope === "extension" ? "Extension" : "Account";
  const refusals = [scope === "extension" ? "extension_not_found" : "account_not_found"] as const;
  return new Elysia({ prefix: `/overrides/${segment}` })
    .use(apiAuth)
    .put(
      "/:id",
      ({ params, body }) => overrides.replace(scope, params.id, body),
      controlRoute(`set${Scope}Overrides`, `Set the limit overrides of ${what}`, {
        description:
          "The body is a map of limit key → value and replaces the scope's overrides. Unknown keys and values above a hard limit are a 422.",
        params,
        body: OverridesBody,
        answers: { 200: OverridesView },
        refusals,
      }),
    )
    .get(
      "/:id",
      ({ params }) => overrides.get(scope, params.id),
      controlRoute(`get${Scope}Overrides`, `Read the limit overrides of ${what}`, {
        params,
        answers: { 200: OverridesView },
        refusals,
      }),
    )
    .delete(
      "/:id",
      ({ params }) => {
        overrides.remove(scope, params.id);
        return noContent();
      },
      controlRoute(`delete${Scope}Overrides`, `Remove the limit overrides of ${what}`, {
        params,
        answers: { 204: NoContent("Overrides removed; defaults apply again") },
        refusals,
      }),
    );
}

export function overrideRoutes(overrides: OverrideService) {
  return new Elysia()
    .use(scopeRoutes(overrides, "extension", "extensions"))
    .use(scopeRoutes(overrides, "account", "accounts"));
}
