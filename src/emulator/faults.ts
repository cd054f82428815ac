import { Elysia } from "elysia";
import { errors } from "../errors/catalog";
import { apiAuth } from "../http/auth";
import { t } from "../http/schema";
import type { Runtime } from "../runtime";
import { FaultRule, FaultRuleInput, IdParams } from "./model";
import { controlResponses, NoContent, noContent, security, tags } from "./route-kit";

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
        response: controlResponses(
          { 201: t.Object({ fault: FaultRule }) },
          "unsupported_media_type",
          "payload_too_large",
          "validation_error",
        ),
        detail: {
          tags,
          security,
          operationId: "createFault",
          summary: "Inject a fault into matching developer-API requests",
          description:
            "Matching requests (method, path pattern) answer with the chosen status and {error:{code,message,status}}, or are delayed by latencyMs and proceed. `times`: the next N matches only; `probability`: 0..1. Checked before authentication, so a fault can replace any response.",
        },
      },
    )
    .get("", () => ({ faults: faults.list() }), {
      response: controlResponses({ 200: t.Object({ faults: t.Array(FaultRule) }) }),
      detail: { tags, security, operationId: "listFaults", summary: "List fault rules with how often each fired" },
    })
    .delete(
      "",
      () => {
        faults.clear();
        return noContent();
      },
      {
        response: controlResponses({ 204: NoContent("All rules removed") }),
        detail: { tags, security, operationId: "deleteFaults", summary: "Remove every fault rule" },
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
        response: controlResponses({ 204: NoContent("Rule removed") }, "malformed_path", "fault_not_found"),
        detail: { tags, security, operationId: "deleteFault", summary: "Remove one fault rule" },
      },
    );
}
