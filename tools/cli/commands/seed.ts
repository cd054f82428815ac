import { resolve } from "node:path";
import { defineCommand } from "citty";
import type { Fixture as ClientFixture } from "../../../client";
import { JSON_BODY_MAX_BYTES } from "../../../common/api-rules";
import { readServerFile } from "../../../common/server-file";
import {
  type BundleDir,
  createLogger,
  createRuntime,
  DataDirInUseError,
  EmulatorClock,
  exportArchive,
  type Fixture,
  FixtureError,
  parseServerConfig,
  type SeedReport,
} from "../../../server";
import { adminClient, call, type Endpoints } from "../../calls/http";
import { UsageError } from "../../calls/usage-error";
import { verifyServer } from "../lib/find-server";
import { readFixtureSource } from "../lib/fixture-arg";
import { seedReportLines } from "../lib/seed-report";
import { checkDataDir, describeStartupError } from "../lib/startup-errors";
import { resolveServer, targetArgs } from "../lib/target";
import { stdoutIsTerminal } from "../lib/terminal";
import { EXIT, out } from "../output";

const seedArgs = {
  file: {
    type: "positional",
    description: "Fixture file (the format of `ext serve --seed`), or `demo` for the embedded demo fixture",
    valueHint: "FILE",
  },
  "data-dir": {
    type: "string",
    description:
      "Seed this data directory (env EXT_DATA_DIR; default ./.ext-data); through its server when one is running",
    valueHint: "DIR",
  },
  target: {
    ...targetArgs.target,
    description:
      "Seed a running emulator instead, through its control plane: `local` (env EXT_LOCAL_URL, else the verified `ext serve` of the nearest .ext-data in this folder or above) or its URL, API base or /_emulator URL",
  },
  "admin-token": targetArgs["admin-token"],
  json: {
    type: "boolean",
    description:
      "Print the seed report as one JSON object, with the created keys' values (text output prints them only to a terminal)",
  },
} as const;

/** Through a running server's control plane; an export directory travels as the archive GET /_emulator/export writes. */
async function seedThrough(
  endpoints: Endpoints,
  adminToken: string | null,
  fixture: Fixture,
  bundleDir: BundleDir,
): Promise<SeedReport> {
  const admin = adminClient(endpoints, adminToken);
  // Checked against the fixture format when read; the document's type marks the fields that have defaults required.
  const body = fixture as ClientFixture;
  const json = Buffer.from(JSON.stringify(fixture));
  if (!bundleDir && json.length <= JSON_BODY_MAX_BYTES) return call(() => admin.POST("/_emulator/seed", { body }));
  // An export directory, or a fixture over the JSON body cap, travels as an archive.
  const { directoryArchive, EXPORT_MEDIA_TYPE, fixtureArchive } = await exportArchive();
  const chunks: Uint8Array[] = [];
  for await (const chunk of bundleDir ? directoryArchive(bundleDir.dir) : fixtureArchive(json)) chunks.push(chunk);
  const archive = Buffer.concat(chunks);
  return call(() =>
    admin.POST("/_emulator/seed", {
      body,
      bodySerializer: () => archive,
      headers: { "content-type": EXPORT_MEDIA_TYPE },
    }),
  );
}

/** How long `ext seed --data-dir` waits for a data directory whose holder has not published its address yet. */
const HOLDER_WAIT_MS = 10_000;
const HOLDER_POLL_MS = 50;

/**
 * Into the data directory: straight into the SQLite file (taking the directory's lock, so no server starts on
 * it meanwhile), or, when a server holds it, through that server's control plane: the server is the only
 * writer of its database (it says where it listens in server.json: common/server-file.ts). A holder without an address (a server still starting,
 * another seed) is waited for.
 */
async function seedDataDir(fixture: Fixture, bundleDir: BundleDir, dataDir: string | undefined) {
  const flags = { dataDir };
  const config = parseServerConfig({ ...flags, logLevel: "warn", seed: null, memory: false });
  const dir = resolve(config.dataDir);
  const clock = new EmulatorClock();
  const deadline = clock.nowMs() + HOLDER_WAIT_MS;
  for (;;) {
    let runtime: ReturnType<typeof createRuntime>;
    try {
      checkDataDir(config, flags);
      runtime = createRuntime(config, { logger: createLogger("warn") });
    } catch (e) {
      if (e instanceof DataDirInUseError) {
        const server = readServerFile(dir);
        if (server && (e.pid === null || server.pid === e.pid)) {
          // Verified like any found server, and driven with the token it proved it holds.
          const found = await verifyServer(dir, server);
          return await seedThrough(found.endpoints, found.adminToken, fixture, bundleDir);
        }
        if (clock.nowMs() < deadline) {
          await Bun.sleep(HOLDER_POLL_MS);
          continue;
        }
        throw new Error(
          `data directory ${dir} is in use (${e.pid === null ? "PID unknown" : `PID ${e.pid}`}) and no running ext serve answers for it; seed it once that process has ended, or use --target`,
        );
      }
      // A data dir that is a file or cannot be written: one line naming it, never errno text.
      const known = describeStartupError(e, config, flags);
      if (!known) throw e;
      if (known.exitCode === EXIT.usage) throw new UsageError(known.message, false);
      throw new Error(known.message);
    }
    try {
      return runtime.seed(fixture, bundleDir);
    } catch (e) {
      if (e instanceof FixtureError) throw new UsageError(e.message, false);
      throw e;
    } finally {
      runtime.close();
    }
  }
}

export default defineCommand({
  meta: {
    name: "seed",
    description:
      "Load a fixture into a data directory or a running emulator (idempotent); print the API keys it created",
  },
  args: seedArgs,
  async run({ args }) {
    if (!args.file) throw new UsageError("give the fixture FILE (or `demo`)");
    if (args.target !== undefined && args["data-dir"] !== undefined)
      throw new UsageError("give --data-dir or --target, not both");
    const { fixture, bundleDir } = readFixtureSource(args.file);
    let report: SeedReport;
    if (args.target !== undefined) {
      const { endpoints, adminToken } = await resolveServer(args);
      report = await seedThrough(endpoints, adminToken, fixture, bundleDir);
    } else {
      report = await seedDataDir(fixture, bundleDir, args["data-dir"]);
    }
    // Key values only to a terminal or with --json: a file or pipe may be read by others (tools/cli/lib/terminal.ts).
    const options = { json: Boolean(args.json), terminal: stdoutIsTerminal() };
    for (const line of seedReportLines(fixture, report, options)) out(line);
  },
});
