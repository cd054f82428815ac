import { type DocumentDecoration, Elysia } from "elysia";
import { errors } from "../errors/catalog";
import { EXPORT_MEDIA_TYPE } from "../exports/document";
import { apiAuth } from "../http/auth";
import { JSON_BODY_MAX_BYTES, readJsonBody } from "../http/body-limit";
import { mediaTypeOf } from "../http/media-type";
import { t } from "../http/schema";
import type { Runtime } from "../runtime";
import { Fixture, SeedReport } from "../seed/model";
import { seedBodyFile, stagedBundleDir, stageSeedArchive } from "./exports";
import { StateSummary } from "./model";
import { emulatorState, resetEmulator, seedEmulator } from "./reset";
import { controlResponses, security, tags } from "./route-kit";

const ResetReport = t.Object(
  {
    reset: t.Literal(true),
    seed: t.Union([SeedReport, t.Null()], { description: "The start-up fixture's load report" }),
  },
  { additionalProperties: false },
);

/** The seed body as the document shows it: the Fixture model (registered below, so the document has it). */
const FIXTURE_BODY: DocumentDecoration["requestBody"] = {
  content: { "application/json": { schema: { $ref: "#/components/schemas/Fixture" } } },
  required: true,
};

export function stateRoutes(runtime: Runtime) {
  return new Elysia()
    .model({ Fixture })
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
    .post(
      "/seed",
      ({ body, request }) => seedEmulator(runtime, body, seedBodyFile(request), stagedBundleDir(request)),
      {
        // A JSON fixture, as the developer API's JSON routes read one, or an export archive (GET /export).
        parse: [
          ({ request, contentType }: { request: Request; contentType: string }) => {
            const type = mediaTypeOf(contentType);
            if (type === EXPORT_MEDIA_TYPE) return stageSeedArchive(runtime, request);
            if (type && type !== "application/json")
              throw errors.unsupportedMediaType(`application/json or ${EXPORT_MEDIA_TYPE}`, contentType);
            return readJsonBody(request, JSON_BODY_MAX_BYTES);
          },
          "json" as never,
        ],
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
          summary: "Load a fixture or an export (same formats as --seed), idempotently",
          description: `A fixture as JSON, or an export archive (GET /export) as ${EXPORT_MEDIA_TYPE}: a newer format, a truncated archive or a bundle that does not match its digest is refused naming the entry, and nothing changes. What already exists is left as it is. Generated keys are returned once, in keys[].key.`,
          // The body's schema for the document only: seedEmulator checks it, once, with the fixture's own messages.
          requestBody: FIXTURE_BODY,
        },
      },
    )
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
