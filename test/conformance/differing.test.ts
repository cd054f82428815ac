/**
 * Against a server that differs from ext in five known ways, `ext conformance` names each difference with
 * both answers and exits non-zero; a difference it does not know of is not invented.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { join, resolve } from "node:path";
import { runConformance } from "../../tools/conformance/run";
import type { RunReport } from "../../tools/conformance/types";
import { type Emulator, startEmulator } from "../../tools/helper/start-emulator";
import { extBinary } from "../helpers/run-cli";
import { type DifferingServer, startDifferingServer } from "./differing-server";

const ROOT = resolve(import.meta.dir, "../..");

describe("ext conformance against a server that differs", () => {
  let emulator: Emulator;
  let differing: DifferingServer;
  let report: RunReport;
  beforeAll(async () => {
    emulator = await startEmulator({ rateLimits: false });
    differing = startDifferingServer(emulator.url, {
      differences: ["create-200", "401-code", "list-missing-field", "404-no-status", "secret-echo"],
    });
    report = await runConformance({ url: differing.url, apiKey: emulator.apiKey });
  }, 60_000);
  afterAll(async () => {
    differing.stop();
    await emulator.stop();
  });

  const differed = () => report.results.filter((r) => r.kind === "spec" && r.outcome === "differed");
  const byId = (id: string) => report.results.find((r) => r.id === id)!;

  test("a create answering 200 is named, with both answers", () => {
    const r = byId("extensions.create");
    expect(r.outcome).toBe("differed");
    expect(r.note).toContain("status should be 201, got 200");
    expect(r.expected).toStartWith("201 ");
    expect(r.got).toStartWith("200 {");
  });

  test("a 401 with another code is named", () => {
    for (const id of ["auth.missing-key", "auth.invalid-key", "auth.malformed"]) {
      expect(byId(id).outcome).toBe("differed");
      expect(byId(id).note).toContain("error.code should be unauthorized, got invalid_token");
    }
  });

  test("a list item missing a field is named", () => {
    expect(byId("extensions.list-created").note).toContain("extensions[0]: field installCount is missing");
  });

  test("a 404 envelope missing status is named", () => {
    for (const id of ["extensions.get-missing", "installs.get-missing", "limits.get-missing"])
      expect(byId(id).note).toContain("error.status should be 404 (the HTTP status), got nothing");
  });

  test("a secret PUT echoing the value is named, and the value is not in the report", () => {
    expect(byId("secrets.put").note).toContain("status should be 204, got 200");
    expect(byId("secrets.put").got).toContain("<secret value>");
    expect(byId("secrets.never-returned").outcome).toBe("differed");
    expect(JSON.stringify(report)).not.toMatch(/conformance-[A-Za-z0-9_-]{24}/);
  });

  test("nothing else differs, and the scratch extension is gone", async () => {
    const named = new Set(differed().map((r) => r.id));
    expect([...named].sort()).toEqual(
      [
        "auth.invalid-key",
        "auth.malformed",
        "auth.missing-key",
        "extensions.create",
        "extensions.delete-missing",
        "extensions.get-missing",
        "extensions.list-created",
        "extensions.patch-missing",
        "installs.get-missing",
        "limits.get-missing",
        "secrets.list-missing",
        "secrets.never-returned",
        "secrets.put",
        "secrets.replace",
        "versions.list-missing",
      ].sort(),
    );
    expect(report.cleanup.removed).toBe(true);
    const { data } = await emulator.client.GET("/developer/v1/extensions");
    expect(data?.extensions.filter((e) => e.name.startsWith("ext-conformance-scratch"))).toEqual([]);
  });

  test("the command exits 1 and prints each difference with the request and both answers", async () => {
    const junit = join(await Bun.$`mktemp -d`.text().then((s) => s.trim()), "report.xml");
    const proc = Bun.spawn([extBinary(), "conformance", "--target", differing.url, "--junit", junit], {
      cwd: ROOT,
      env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "", EXT_API_KEY: emulator.apiKey },
      stdout: "pipe",
      stderr: "pipe",
    });
    const [stdout, code] = await Promise.all([new Response(proc.stdout).text(), proc.exited]);
    expect(code).toBe(1);
    expect(stdout).toContain("DIFFERS  extensions.create:");
    expect(stdout).toMatch(/request {2}POST \/developer\/v1\/extensions /);
    expect(stdout).toMatch(/ext {5}201 \{extension/);
    expect(stdout).toMatch(/target {2}200 \{"extension"/);
    expect(stdout).not.toContain(emulator.apiKey);
    const json = Bun.spawn([extBinary(), "conformance", "--target", differing.url, "--json"], {
      cwd: ROOT,
      env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "", EXT_API_KEY: emulator.apiKey },
      stdout: "pipe",
      stderr: "pipe",
    });
    const [jsonOut, jsonCode] = await Promise.all([new Response(json.stdout).text(), json.exited]);
    expect(jsonCode).toBe(1);
    const parsed = JSON.parse(jsonOut) as { conforms: boolean; results: { id: string; outcome: string }[] };
    expect(parsed.conforms).toBe(false);
    expect(parsed.results.find((r) => r.id === "extensions.create")?.outcome).toBe("differed");
    const xml = await Bun.file(junit).text();
    expect(xml).toContain('<failure message="status should be 201, got 200');
    expect(Number(xml.match(/tests="(\d+)"/)?.[1])).toBeGreaterThanOrEqual(25);
  }, 60_000);
});
