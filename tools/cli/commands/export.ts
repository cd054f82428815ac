import { rmSync } from "node:fs";
import { defineCommand } from "citty";
import { exportArchive } from "../../../server";
import { adminClient, send } from "../../calls/http";
import { UsageError } from "../../calls/usage-error";
import { resolveServer, targetArgs } from "../lib/target";
import { err, out } from "../output";

export default defineCommand({
  meta: {
    name: "export",
    description: "Write a running emulator's whole state to DIR (fixture.json + bundles/), loadable by --seed DIR",
  },
  args: {
    dir: { type: "positional", description: "Directory to write (new, empty, or an earlier export)", valueHint: "DIR" },
    target: targetArgs.target,
    "admin-token": targetArgs["admin-token"],
    "include-secret-values": {
      type: "boolean",
      description: "Also write secret values, in plain text, into fixture.json (default: names only)",
    },
  },
  async run({ args }) {
    if (!args.dir) throw new UsageError("give the DIR to write the export to");
    const { endpoints, adminToken } = await resolveServer(args);
    const includeSecretValues = Boolean(args["include-secret-values"]);
    if (includeSecretValues)
      err("[ext] warning: secret values are written in plain text to fixture.json; keep this export private");
    const admin = adminClient(endpoints, adminToken);
    // A refusal (a 401 without the token) is read once, as every refusal is: said, never read twice.
    const { response } = await send(
      () =>
        admin.GET("/_emulator/export", {
          params: { query: includeSecretValues ? { includeSecretValues: true } : {} },
          parseAs: "stream",
        }),
      { retries: 0 },
    );
    if (!response.body) throw new Error(`${endpoints.adminUrl}/export answered ${response.status} with no archive`);
    const { ExportArchiveError, readExportArchive, replaceExportDir, stagingDirFor } = await exportArchive();
    const staging = stagingDirFor(args.dir);
    try {
      await readExportArchive(response.body, staging, `${endpoints.adminUrl}/export`);
      replaceExportDir(staging, args.dir);
    } catch (e) {
      rmSync(staging, { recursive: true, force: true });
      if (e instanceof ExportArchiveError) throw new Error(e.message);
      throw e;
    }
    out(`exported to ${args.dir}`);
  },
});
