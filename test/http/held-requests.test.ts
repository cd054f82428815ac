/**
 * A fault rule's latency holds a request; once it is over the app handles the request again, which finds the
 * context of its first pass and the fault decided there (server/http/pre-routing.ts). Only such a request is
 * handled as held: one Request object handled twice by the app is two requests, each with its own fault.
 */
import { afterAll, expect, test } from "bun:test";
import { demoApp, listRequest as list } from "../helpers/in-process-app";

const { runtime, app } = demoApp();
afterAll(() => runtime.close());

test("a Request handled twice is two requests: each one meets the rules, and each is logged", async () => {
  runtime.control.faults.add({ method: "GET", path: "/extensions", status: 503, times: 2 });
  const request = list();
  const statuses = [];
  for (let i = 0; i < 3; i++) statuses.push((await app.handle(request)).status);
  expect(statuses).toEqual([503, 503, 200]);
  expect(runtime.control.faults.list()[0]?.fired).toBe(2);
  expect(runtime.control.requestLog.count).toBe(3);
});

test("a held request is answered once: its rule fires once, and its answer is logged once", async () => {
  runtime.control.faults.clear();
  runtime.control.requestLog.clear();
  runtime.control.faults.add({ method: "GET", path: "/extensions", latencyMs: 20, status: 502, times: 1 });
  expect((await app.handle(list())).status).toBe(502);
  expect((await app.handle(list())).status).toBe(200);
  expect(runtime.control.faults.list()[0]?.fired).toBe(1);
  expect(runtime.control.requestLog.count).toBe(2);
});
