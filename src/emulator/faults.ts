import { Elysia, t } from "elysia";
import { errors } from "../errors/catalog";
import { apiAuth } from "../http/auth";
import type { Runtime } from "../runtime";
import { FaultRule, FaultRuleInput, IdParams } from "./model";
import { controlErrors, noContent, security, tags } from "./route-kit";

export function faultRoutes(runtime: Runtime) {
  const faults = runtime.control.faults;
  return new Elysia({ prefix: "/faults" })
    .use(apiAuth)
    .post(
      "",
      ({ body, set }) => {
        set.status = 201;
        return { fault: faults.add(body) };
      },
      {
        json: true,
        body: FaultRuleInput,
        response: { 201: t.Object({ fault: FaultRule }), ...controlErrors(415, 422) },
        detail: {
          tags,
          security,
          summary: "Inject a fault into matching developer-API requests",
          description:
            "Matching requests (method, path pattern) answer with the chosen status and {error:{code,message,status}}, or are delayed by latencyMs and proceed. `times`: the next N matches only; `probability`: 0..1. Checked before authentication, so a fault can replace any response.",
        },
      },
    )
    .get("", () => ({ faults: faults.list() }), {
      response: { 200: t.Object({ faults: t.Array(FaultRule) }), ...controlErrors() },
      detail: { tags, security, summary: "List fault rules with how often each fired" },
    })
    .delete(
      "",
      () => {
        faults.clear();
        return noContent();
      },
      {
        response: { 204: t.Void({ description: "All rules removed" }), ...controlErrors() },
        detail: { tags, security, summary: "Remove every fault rule" },
      },
    )
    .delete(
      "/:id",
      ({ params }) => {
        if (!faults.remove(params.id)) throw errors.faultNotFound(params.id);
        return noContent();
      },
      {
        params: IdParams,
        response: { 204: t.Void({ description: "Rule removed" }), ...controlErrors(404) },
        detail: { tags, security, summary: "Remove one fault rule" },
      },
    );
}
