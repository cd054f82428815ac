import { Elysia, t } from "elysia";
import { Fixture, SeedReport } from "../fixtures/model";
import { apiAuth } from "../http/auth";
import type { Runtime } from "../runtime";
import { StateSummary } from "./model";
import { checkSeedBody, emulatorState, resetEmulator, seedEmulator } from "./reset";
import { controlResponses, security, tags } from "./route-kit";

const ResetReport = t.Object(
  {
    reset: t.Literal(true),
    seed: t.Union([SeedReport, t.Null()], { description: "The start-up fixture's load report" }),
  },
  { additionalProperties: false },
);

export function stateRoutes(runtime: Runtime) {
  return new Elysia()
    .use(apiAuth)
    .post("/reset", () => ({ reset: true as const, seed: resetEmulator(runtime).seed }), {
      response: controlResponses({ 200: ResetReport }),
      detail: {
        tags,
        security,
        operationId: "resetEmulator",
        summary: "Wipe all state and re-apply the start-up fixture",
        description:
          "Rows, bundle files, rate-limit windows, fault rules, the request log, pending auto-approvals and the clock.",
      },
    })
    .post("/seed", ({ body }) => seedEmulator(runtime, body), {
      json: true,
      // Before the schema check: the fixture's own messages and paths, the same as `ext seed` prints.
      transform: ({ body }) => checkSeedBody(body),
      body: Fixture,
      response: controlResponses(
        { 200: SeedReport },
        "unsupported_media_type",
        "payload_too_large",
        "validation_error",
      ),
      detail: {
        tags,
        security,
        operationId: "seedEmulator",
        summary: "Load a fixture (same format as --seed), idempotently",
        description: "What already exists is left as it is. Generated keys are returned once, in keys[].key.",
      },
    })
    .get("/state", () => emulatorState(runtime), {
      response: controlResponses({ 200: StateSummary }),
      detail: {
        tags,
        security,
        operationId: "getEmulatorState",
        summary: "Counts per resource, fault rules, request log size and the clock",
      },
    });
}
