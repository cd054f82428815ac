/**
 * The request gates: who may call what, decided before a route parses or validates anything. Each gate
 * owns a part of the URL space (the whole of it for the Host check, the developer API, the control plane);
 * one `onRequest` hook runs, in order, every gate whose part holds the request's path, computed once. A gate
 * refuses by throwing (the one `onError` answers).
 */
import { Elysia } from "elysia";
import { pathOf } from "./paths";

export interface RequestGate {
  matches(path: string): boolean;
  /** `set` is the request's response state: a gate may add headers (the rate-limit ones). */
  check(request: Request, set: { headers: Record<string, unknown> }, path: string): void;
}

export function requestGates(...gates: RequestGate[]) {
  return new Elysia({ name: "request-gates" }).onRequest(({ request, set }) => {
    const path = pathOf(request.url);
    for (const gate of gates) {
      if (gate.matches(path)) gate.check(request, set as { headers: Record<string, unknown> }, path);
    }
  });
}
