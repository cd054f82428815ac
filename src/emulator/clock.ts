import { Elysia } from "elysia";
import { apiAuth } from "../http/auth";
import type { Runtime } from "../runtime";
import { changeClock } from "./clock-control";
import { ClockBody, ClockState } from "./model";
import { controlResponses, security, tags } from "./route-kit";

export function clockRoutes(runtime: Runtime) {
  return new Elysia()
    .use(apiAuth)
    .get("/clock", () => runtime.clock.state(), {
      response: controlResponses({ 200: ClockState }),
      detail: { tags, security, operationId: "getClock", summary: "The emulator's time" },
    })
    .post("/clock", ({ body }) => changeClock(runtime.clock, body), {
      json: true,
      body: ClockBody,
      response: controlResponses(
        { 200: ClockState },
        "unsupported_media_type",
        "payload_too_large",
        "validation_error",
      ),
      detail: {
        tags,
        security,
        operationId: "changeClock",
        summary: "Move, set, freeze or release the clock",
        description:
          'One of {"advanceSeconds": n}, {"set": ISO, "freeze"?: bool}, {"mode": "real"} (back to real time) or {"mode": "frozen"}. Timestamps and rate-limit windows follow it.',
      },
    });
}
