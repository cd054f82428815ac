import { defineCommand } from "citty";
import type { RequestLogEntry } from "../../src/emulator/model";
import { printable } from "../../src/printable";
import { ApiRequestError, type ErrorBody, requestJson } from "../lib/http";
import { UsageError } from "../lib/runner";
import { resolveServer, targetArgs } from "../lib/target";
import { err, out } from "../output";

const logsArgs = {
  target: targetArgs.target,
  "admin-token": targetArgs["admin-token"],
  follow: { type: "boolean", description: "Keep printing requests as they happen (Ctrl-C to stop)" },
  json: { type: "boolean", description: "One JSON object per line" },
  limit: {
    type: "string",
    description: "How many past requests to print first (default 20; 0 with --follow prints only new ones)",
    valueHint: "N",
  },
} as const;

const line = (e: RequestLogEntry, json: boolean) =>
  json
    ? JSON.stringify(e)
    : `${e.at}  ${printable(e.method).padEnd(6)} ${String(e.status)}${e.errorCode ? ` ${printable(e.errorCode)}` : ""}  ${printable(e.path)}  ${e.accountId ?? "-"}  ${e.durationMs} ms`;

/** Reads the server's event stream and prints each `request` event until it ends. */
async function follow(adminUrl: string, recent: number, token: string | null, json: boolean): Promise<void> {
  const headers: Record<string, string> = { accept: "text/event-stream" };
  if (token) headers.authorization = `Bearer ${token}`;
  let res: Response;
  try {
    res = await fetch(`${adminUrl}/requests/stream?recent=${recent}`, { headers });
  } catch (e) {
    throw new Error(`cannot reach ${new URL(adminUrl).origin} (${(e as Error).message}); is the emulator running?`);
  }
  if (!res.ok || !res.body) {
    // The same error line as every other command: the server's envelope as it is.
    const text = await res.text();
    let envelope: ErrorBody | null = null;
    try {
      envelope = (JSON.parse(text) as { error?: ErrorBody }).error ?? null;
    } catch {
      envelope = null;
    }
    throw new ApiRequestError(res.status, envelope, text);
  }
  const decoder = new TextDecoder();
  let buffer = "";
  for await (const chunk of res.body) {
    buffer += decoder.decode(chunk, { stream: true });
    let end: number;
    while ((end = buffer.indexOf("\n\n")) >= 0) {
      const data = buffer
        .slice(0, end)
        .split("\n")
        .find((l) => l.startsWith("data: "));
      buffer = buffer.slice(end + 2);
      if (data) out(line(JSON.parse(data.slice(6)) as RequestLogEntry, json));
    }
  }
  err("the emulator closed the request stream");
}

export default defineCommand({
  meta: { name: "logs", description: "Print the emulator's developer-API request log; --follow streams it live" },
  args: logsArgs,
  async run({ args }) {
    const limit = args.limit === undefined ? 20 : Number(args.limit);
    if (!Number.isInteger(limit) || limit < 0 || limit > 500)
      throw new UsageError("--limit must be a whole number from 0 to 500");
    const { endpoints, adminToken: token } = await resolveServer(args);
    const { adminUrl } = endpoints;
    const json = Boolean(args.json);
    if (args.follow) return follow(adminUrl, limit, token, json);
    if (limit === 0) return;
    const { requests } = await requestJson<{ requests: RequestLogEntry[] }>(`${adminUrl}/requests?limit=${limit}`, {
      token,
    });
    for (const e of requests.reverse()) out(line(e, json));
  },
});
