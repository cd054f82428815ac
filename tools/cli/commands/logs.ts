import { defineCommand } from "citty";
import { type AdminClient, type RequestLogEntry, readEvents } from "../../../client";
import { REQUEST_LOG_CAPACITY } from "../../../common/api-rules";
import { printable } from "../../../common/text/printable";
import { adminClient, call, send } from "../../calls/http";
import { ConnectionClosedError } from "../../calls/http1-connection";
import { UsageError } from "../../calls/usage-error";
import { resolveServer, targetArgs } from "../lib/target";
import { out } from "../output";

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

/** One entry as `ext logs` prints it: every value the server gave escaped (src/printable.ts). */
export const logLine = (e: RequestLogEntry, json: boolean) =>
  json
    ? JSON.stringify(e)
    : `${printable(String(e.at))}  ${printable(e.method).padEnd(6)} ${printable(String(e.status))}${e.errorCode ? ` ${printable(e.errorCode)}` : ""}  ${printable(e.path)}  ${printable(e.accountId ?? "-")}  ${printable(String(e.durationMs))} ms`;

/**
 * Reads the server's event stream and prints each `request` event until it ends. The server ends it only when it
 * stops (or drops a reader that fell too far behind): a failure, exit 1, so a script that follows can tell.
 */
async function follow(admin: AdminClient, recent: number, json: boolean): Promise<void> {
  const { response } = await send(
    () =>
      admin.GET("/_emulator/requests/stream", {
        params: { query: { recent } },
        headers: { accept: "text/event-stream" },
        parseAs: "stream",
      }),
    { retries: 0 },
  );
  const closed = "the emulator closed the request stream: it stopped, or dropped this reader for falling behind";
  try {
    for await (const entry of readEvents<RequestLogEntry>(response)) out(logLine(entry, json));
  } catch (e) {
    // Closed mid-answer (a stop ends the stream without its last chunk) is the same end as closed cleanly.
    if (e instanceof ConnectionClosedError) throw new Error(closed);
    throw e;
  }
  throw new Error(closed);
}

export default defineCommand({
  meta: { name: "logs", description: "Print the emulator's developer-API request log; --follow streams it live" },
  args: logsArgs,
  async run({ args }) {
    const limit = args.limit === undefined ? 20 : Number(args.limit);
    if (!Number.isInteger(limit) || limit < 0 || limit > REQUEST_LOG_CAPACITY)
      throw new UsageError(`--limit must be a whole number from 0 to ${REQUEST_LOG_CAPACITY}`);
    const { endpoints, adminToken } = await resolveServer(args);
    const admin = adminClient(endpoints, adminToken);
    const json = Boolean(args.json);
    if (args.follow) return follow(admin, limit, json);
    if (limit === 0) return;
    const { requests } = await call(() => admin.GET("/_emulator/requests", { params: { query: { limit } } }));
    for (const e of requests.reverse()) out(logLine(e, json));
  },
});
