import { Elysia } from "elysia";
import { JSON_BODY_MAX_BYTES } from "../../common/api-rules";
import { errors } from "../errors/catalog";
import { JSON_BODY_ERRORS } from "../errors/codes";
import { EXPORT_MEDIA_TYPE } from "../exports/document";
import { apiAuth } from "../http/auth";
import { readJsonBody } from "../http/body-limit";
import { mediaTypeOf } from "../http/media-type";
import { StateSummary } from "../runtime/control-state/model";
import type { Runtime } from "../runtime/runtime";
import { t } from "../schema/schema";
import { Fixture, SeedReport } from "../seed/model";
import { seedBodyFile, stagedBundleDir, stageSeedArchive } from "./exports";
import { emulatorState, resetEmulator, seedEmulator } from "./reset";
import { controlRoute } from "./route-kit";

const ResetReport = t.Object(
  {
    reset: t.Literal(true),
    seed: t.Union([SeedReport, t.Null()], { description: "The start-up fixture's load report" }),
  },
  { additionalProperties: false },
);

/** The seed body as the document shows it: the Fixture model (registered below, so the document has it). */
const FIXTURE_SCHEMA = { $ref: "#/components/schemas/Fixture" };

/**
 * The seed route reads its own body (a JSON fixture, as the developer API's JSON routes read one, or an export
 * archive) with its own parser, and seedEmulator checks it, once, with the fixture's own messages.
 */
const { parse: _readsItsOwnBody, ...seedRoute } = controlRoute(
  "seedEmulator",
  "Load a fixture or an export (same formats as --seed), idempotently",
  {
    description: `A fixture as JSON, or an export archive (GET /export) as ${EXPORT_MEDIA_TYPE}: a newer format, a truncated archive or a bundle that does not match its digest is refused naming the entry, and nothing changes. What already exists is left as it is. Generated keys are returned once, in keys[].key.`,
    ownBody: { mediaType: "application/json", schema: FIXTURE_SCHEMA },
    answers: { 200: SeedReport },
    refusals: JSON_BODY_ERRORS,
  },
);

export function stateRoutes(runtime: Runtime) {
  return new Elysia()
    .model({ Fixture })
    .use(apiAuth)
    .post(
      "/reset",
      () => ({ reset: true as const, seed: resetEmulator(runtime).seed }),
      controlRoute("resetEmulator", "Wipe all state and re-apply the start-up fixture", {
        description:
          "Rows, bundle files, rate-limit windows, fault rules, the request log, pending auto-approvals and the clock.",
        answers: { 200: ResetReport },
      }),
    )
    .post(
      "/seed",
      ({ body, request }) => seedEmulator(runtime, body, seedBodyFile(request), stagedBundleDir(request)),
      {
        ...seedRoute,
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
      },
    )
    .get(
      "/state",
      () => emulatorState(runtime),
      controlRoute("getEmulatorState", "Counts per resource, fault rules, request log size and the clock", {
        answers: { 200: StateSummary },
      }),
    );
}
