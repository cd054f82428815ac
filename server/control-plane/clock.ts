import { Elysia } from "elysia";
import { apiAuth } from "../http/auth";
import { ClockBody, ClockState } from "../runtime/control-state/model";
import type { Runtime } from "../runtime/runtime";
import { changeClock } from "./clock-control";
import { controlRoute } from "./route-kit";

export function clockRoutes(runtime: Runtime) {
  return new Elysia()
    .use(apiAuth)
    .get(
      "/clock",
      () => runtime.clock.state(),
      controlRoute("getClock", "The emulator's time", { answers: { 200: ClockState } }),
    )
    .post(
      "/clock",
      ({ body }) => changeClock(runtime.clock, body),
      controlRoute("changeClock", "Move, set, freeze or release the clock", {
        description:
          'One of {"advanceSeconds": n}, {"set": ISO, "freeze"?: bool}, {"mode": "real"} (back to real time) or {"mode": "frozen"}. Timestamps and rate-limit windows follow it.',
        body: ClockBody,
        answers: { 200: ClockState },
      }),
    );
}
