import { Elysia } from "elysia";
import { errors } from "../errors/catalog";
import { apiAuth } from "../http/auth";
import { FaultRule, FaultRuleInput, IdParams } from "../runtime/control-state/model";
import type { Runtime } from "../runtime/runtime";
import { t } from "../schema/schema";
import { controlRoute, NoContent, noContent } from "./route-kit";

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
      controlRoute("createFault", "Inject a fault into matching developer-API requests", {
        description:
          "Matching requests (method, path pattern) answer with the chosen status and {error:{code,message,status}}, or are delayed by latencyMs and proceed. `times`: the next N matches only; `probability`: 0..1. Checked before authentication, so a fault can replace any response.",
        body: FaultRuleInput,
        answers: { 201: t.Object({ fault: FaultRule }) },
      }),
    )
    .get(
      "",
      () => ({ faults: faults.list() }),
      controlRoute("listFaults", "List fault rules with how often each fired", {
        answers: { 200: t.Object({ faults: t.Array(FaultRule) }) },
      }),
    )
    .delete(
      "",
      () => {
        faults.clear();
        return noContent();
      },
      controlRoute("deleteFaults", "Remove every fault rule", {
        answers: { 204: NoContent("All rules removed") },
      }),
    )
    .delete(
      "/:id",
      ({ params }) => {
        if (!faults.remove(params.id)) throw errors.faultNotFound(params.id);
        return noContent();
      },
      controlRoute("deleteFault", "Remove one fault rule", {
        params: IdParams,
        answers: { 204: NoContent("Rule removed") },
        refusals: ["fault_not_found"],
      }),
    );
}
