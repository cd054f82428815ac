/**
 * The Node helper's `deploy(folder, …)`: the deploy core (tools/deploy/deploy.ts) as the binary runs it,
 * `ext deploy … --json`, so the packing, exclusions and local checks are exactly the CLI's, and its line is
 * read as the one result type (client/deploy-result.ts). The API key goes in the child's environment (a flag
 * shows in `ps`).
 */
import { spawn } from "node:child_process";
import { resolve } from "node:path";
import { type DeployJson, deployOutcome, type SubmittedDeploy } from "../../../client/deploy-result";
import type { DeployOptions } from "../../../client/emulator";
import { binaryPath } from "../lib/binary.cjs";

/**
 * Our environment without EXT_* settings (the arguments alone decide where the deploy goes), plus the key and
 * the token: with the token the CLI makes the server prove itself before it sends the key.
 */
function deployEnv(apiKey: string, adminToken: string): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) if (!k.startsWith("EXT_")) env[k] = v;
  env.EXT_API_KEY = apiKey;
  if (adminToken) env.EXT_ADMIN_TOKEN = adminToken;
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
  binary: string | undefined,
  at: { baseUrl: string; apiKey: string; adminToken: string },
  folder: string,
  options: DeployOptions,
): Promise<SubmittedDeploy> {
  const args = ["deploy", resolve(folder), "--extension", options.extensionId, "--version", options.version];
  if (options.changelog !== undefined) args.push("--changelog", options.changelog);
  args.push("--target", at.baseUrl, "--json");
  const { code, stdout, stderr } = await run(binary ?? binaryPath(), args, deployEnv(at.apiKey, at.adminToken));
  let json: DeployJson | null = null;
  try {
    json = JSON.parse(stdout.trim().split("\n").pop() ?? "") as DeployJson;
  } catch {
    json = null;
  }
  return deployOutcome(json, {
    extensionId: options.extensionId,
    otherwise: `ext deploy exited with ${code}: ${stderr.trim() || "no output"}`,
  });
}
