/**
 * The Node helper's `deploy(folder, …)`: the binary's own `ext deploy … --json`, so the packing, exclusions
 * and local checks are exactly the CLI's. The API key goes in the child's environment (a flag shows in
 * `ps`). A refusal rejects with an ApiCallError: the server's, or (checked before uploading) a 422
 * bundle_invalid listing the same problems the server would.
 */
import { spawn } from "node:child_process";
import { resolve } from "node:path";
import type { DeployedVersion, DeployOptions } from "../../../client/emulator";
import { submittedVersion } from "../../../client/emulator-methods";
import { ApiCallError, type ApiClient, type ErrorDetail } from "../../../client/index";
import { binaryPath } from "../lib/binary.cjs";

/** What `ext deploy --json` prints, the part read here. */
interface DeployJson {
  ok?: boolean;
  versionId?: string | null;
  warnings?: string[];
  problems?: ErrorDetail[];
  /** The server's refusal (`{code, message, status, details?}`), or `{message}` for a failure of its own. */
  error?: { code?: string; message?: string; status?: number; details?: ErrorDetail[] };
}

/** Our environment without EXT_* settings: the arguments alone decide where the deploy goes. */
function deployEnv(apiKey: string): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) if (!k.startsWith("EXT_")) env[k] = v;
  env.EXT_API_KEY = apiKey;
  return env;
}

function run(
  bin: string,
  args: string[],
  env: NodeJS.ProcessEnv,
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((done, fail) => {
    const child = spawn(bin, args, { env, stdio: ["ignore", "pipe", "pipe"], windowsHide: true });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (c) => {
      stdout += c;
    });
    child.stderr.on("data", (c) => {
      stderr = (stderr + c).slice(-16 * 1024);
    });
    child.on("error", fail);
    child.on("close", (code) => done({ code, stdout, stderr }));
  });
}

export async function deployWithBinary(
  at: { baseUrl: string; apiKey: string; client: ApiClient; binary: string | undefined },
  folder: string,
  options: DeployOptions,
): Promise<DeployedVersion> {
  const path = `/developer/v1/extensions/${encodeURIComponent(options.extensionId)}/versions`;
  const args = ["deploy", resolve(folder), "--extension", options.extensionId, "--version", options.version];
  if (options.changelog !== undefined) args.push("--changelog", options.changelog);
  args.push("--target", at.baseUrl, "--json");
  const { code, stdout, stderr } = await run(at.binary ?? binaryPath(), args, deployEnv(at.apiKey));
  let result: DeployJson | null = null;
  try {
    result = JSON.parse(stdout.trim().split("\n").pop() ?? "") as DeployJson;
  } catch {
    result = null;
  }
  if (code === 0 && result?.ok && result.versionId)
    return submittedVersion(at.client, options.extensionId, result.versionId, result.warnings ?? []);
  // A label already taken is found before the upload (the CLI asks the server first): the server's own 409.
  if (result?.problems?.some((p) => p.code === "version_exists"))
    throw new ApiCallError({
      status: 409,
      code: "version_exists",
      message: `Version "${options.version}" already exists for this extension.`,
      method: "POST",
      path,
    });
  if (result?.problems)
    throw new ApiCallError({
      status: 422,
      code: "bundle_invalid",
      message: `the bundle would be refused: ${result.problems.map((p) => p.message).join("; ")}`,
      details: result.problems,
      method: "POST",
      path,
    });
  const envelope = result?.error;
  if (envelope?.code && typeof envelope.status === "number")
    throw new ApiCallError({
      status: envelope.status,
      code: envelope.code,
      message: envelope.message ?? envelope.code,
      details: envelope.details ?? [],
      method: "POST",
      path,
    });
  throw new Error(`ext deploy failed (exit ${code}): ${(result?.error?.message ?? stderr.trim()) || "no output"}`);
}
