/**
 * Every way a fixture or an export comes into an emulator, driven in process on one input, each into a fresh
 * state: `ext serve --seed` (the runtime a start builds), `ext seed --data-dir` and `ext seed --target` (the CLI
 * command itself), `POST /_emulator/seed` (JSON, or the export directory as an archive), and a snapshot's
 * restore of what a load left. Each answers an outcome that can be compared across them: accepted with the
 * rows it left, or refused with its first problem (`path: message`).
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { getTableName } from "drizzle-orm";
import { ApiCallError } from "../../client";
import { parseServerConfig } from "../../server/base/config";
import { createLogger } from "../../server/base/logger";
import type { Db } from "../../server/db/database";
import { TABLES_PARENTS_FIRST } from "../../server/db/schema";
import { createRuntime, type Runtime } from "../../server/runtime/runtime";
import { FixtureError } from "../../server/seed/validate";
import seedCommand from "../../tools/cli/commands/seed";
import { startTestEmulator, stopTestEmulator, type TestEmulator } from "../helpers/emulator";
import { tarOf } from "../helpers/tar-entries";

/** A fixture as JSON, or an export directory (fixture.json and bundles/). */
export type Source = { json: unknown } | { dir: string };

export type Outcome = { accepted: true; rows: string } | { accepted: false; problem: string };

export const LOADERS = [
  "ext serve --seed",
  "ext seed --data-dir",
  "ext seed --target",
  "POST /_emulator/seed",
  "snapshot restore",
] as const;
export type LoaderName = (typeof LOADERS)[number];

const GENERATED_ID = /\b(?:acc|ext|ver|key|mem|req|blob)_[0-9a-z]{26}\b/g;
const INSTANT = /\b\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z\b/g;
const KEYED_HASH = /\bhmac:[0-9a-f]{64}\b/g;

/**
 * Every row of every table, in insertion order, as text. What the load made up itself — ids it generated,
 * instants it stamped with its clock, key hashes keyed by its data directory, sealed secret bytes — is written
 * as a placeholder; whatever the input gave (an export's ids, timestamps, hashes) stays exactly as it is.
 */
export function rowsOf(db: Db, input: string): string {
  const given = new Set([GENERATED_ID, INSTANT, KEYED_HASH].flatMap((re) => input.match(re) ?? []));
  const ids = new Map<string, string>();
  const lines: string[] = [];
  for (const table of TABLES_PARENTS_FIRST) {
    const name = getTableName(table);
    for (const row of db.$client.query(`SELECT * FROM ${name} ORDER BY rowid`).all() as Record<string, unknown>[]) {
      const shown = Object.entries(row).map(([column, value]) =>
        value instanceof Uint8Array ? [column, "<sealed>"] : [column, value],
      );
      const text = JSON.stringify(Object.fromEntries(shown))
        .replace(GENERATED_ID, (id) => {
          if (given.has(id)) return id;
          if (!ids.has(id)) ids.set(id, `<id${ids.size + 1}>`);
          return ids.get(id)!;
        })
        .replace(INSTANT, (at) => (given.has(at) ? at : "<now>"))
        .replace(KEYED_HASH, (hash) => (given.has(hash) ? hash : "<keyed hash>"))
        // A generated key's prefix is as random as the key.
        .replace(/"key_prefix":"([^"]*)"/, (all, prefix: string) =>
          input.includes(prefix) ? all : '"key_prefix":"<generated>"',
        );
      lines.push(`${name} ${text}`);
    }
  }
  return lines.join("\n");
}

/** `path: message` of a refusal, whichever way the loader says it. */
function problemOf(e: unknown): string {
  if (e instanceof FixtureError) return `${e.problems[0]?.path}: ${e.problems[0]?.message}`;
  if (e instanceof ApiCallError) return `${e.details?.[0]?.field}: ${e.details?.[0]?.message}`;
  // The CLI's usage error carries the fixture's problems one a line: `  - path: message`.
  const line = (e as Error).message.split("\n").find((l) => l.startsWith("  - "));
  if (line) return line.slice(4);
  throw e;
}

const inputText = (source: Source) =>
  "json" in source ? JSON.stringify(source.json) : readFileSync(join(source.dir, "fixture.json"), "utf8");

/** The source as a file or a directory a command can be given. */
function pathOf(source: Source, scratch: string): string {
  if ("dir" in source) return source.dir;
  const file = join(scratch, "fixture.json");
  writeFileSync(file, JSON.stringify(source.json));
  return file;
}

/** The export directory as the archive GET /_emulator/export writes: every file of it, none left out. */
async function archiveOf(dir: string): Promise<Buffer> {
  const entries: [string, Buffer][] = [["fixture.json", readFileSync(join(dir, "fixture.json"))]];
  let names: string[] = [];
  try {
    names = readdirSync(join(dir, "bundles"));
  } catch {
    // No bundles folder.
  }
  for (const name of names) entries.push([`bundles/${name}`, readFileSync(join(dir, "bundles", name))]);
  return tarOf(entries);
}

export interface Loaders {
  run(name: LoaderName, source: Source): Promise<Outcome>;
  /** Every loader on the same input. */
  all(source: Source): Promise<Record<LoaderName, Outcome>>;
  close(): Promise<void>;
}

export interface LoaderOptions {
  /** Called with the runtime an input was accepted into (`ext serve --seed`'s), before it is closed. */
  onAccepted?: (runtime: Runtime) => void;
}

export async function createLoaders(options: LoaderOptions = {}): Promise<Loaders> {
  // The server the control-plane loaders reach: empty, and emptied again before each load.
  const emu: TestEmulator = await startTestEmulator({ fixture: null });
  const scratchRoot = mkdtempSync(join(tmpdir(), "ext-loaders-"));
  let n = 0;
  const scratch = () => mkdtempSync(join(scratchRoot, `${n++}-`));
  const quiet = createLogger("silent");

  async function intoServer(load: () => Promise<unknown>, input: string): Promise<Outcome> {
    await emu.control.POST("/_emulator/reset");
    try {
      await load();
    } catch (e) {
      return { accepted: false, problem: problemOf(e) };
    }
    return { accepted: true, rows: rowsOf(emu.runtime.db, input) };
  }

  async function cli(args: Record<string, unknown>): Promise<void> {
    const log = console.log;
    // The command prints its report; a test's output keeps only what fails.
    console.log = () => {};
    try {
      await (seedCommand.run as (ctx: { args: unknown; rawArgs: string[]; cmd: unknown }) => Promise<void>)({
        args: { json: true, ...args },
        rawArgs: [],
        cmd: seedCommand,
      });
    } finally {
      console.log = log;
    }
  }

  const loaders: Record<LoaderName, (source: Source) => Promise<Outcome>> = {
    async "ext serve --seed"(source) {
      const seed = pathOf(source, scratch());
      let runtime: ReturnType<typeof createRuntime>;
      try {
        runtime = createRuntime(parseServerConfig({ memory: true, seed, logLevel: "silent" }, {}), { logger: quiet });
      } catch (e) {
        return { accepted: false, problem: problemOf(e) };
      }
      try {
        options.onAccepted?.(runtime);
        return { accepted: true, rows: rowsOf(runtime.db, inputText(source)) };
      } finally {
        runtime.close();
      }
    },
    async "ext seed --data-dir"(source) {
      const dir = scratch();
      const dataDir = join(dir, "data");
      try {
        await cli({ file: pathOf(source, dir), "data-dir": dataDir });
      } catch (e) {
        return { accepted: false, problem: problemOf(e) };
      }
      const runtime = createRuntime(parseServerConfig({ dataDir, logLevel: "silent" }, {}), { logger: quiet });
      try {
        return { accepted: true, rows: rowsOf(runtime.db, inputText(source)) };
      } finally {
        runtime.close();
      }
    },
    "ext seed --target": (source) =>
      intoServer(
        () => cli({ file: pathOf(source, scratch()), target: emu.url, "admin-token": emu.runtime.control.adminToken }),
        inputText(source),
      ),
    "POST /_emulator/seed": (source) =>
      intoServer(async () => {
        const res =
          "json" in source
            ? await emu.rawRequest("POST", "/_emulator/seed", {
                key: emu.runtime.control.adminToken,
                json: source.json,
              })
            : await emu.rawRequest("POST", "/_emulator/seed", {
                key: emu.runtime.control.adminToken,
                body: await archiveOf(source.dir),
                headers: { "content-type": "application/x-tar" },
              });
        if (res.status === 200) return;
        const detail = (res.body as { error?: { details?: { field?: string; message: string }[] } }).error
          ?.details?.[0];
        throw new FixtureError([{ path: detail?.field ?? "(none)", message: detail?.message ?? res.text }]);
      }, inputText(source)),
    async "snapshot restore"(source) {
      const loaded = await loaders["POST /_emulator/seed"](source);
      if (!loaded.accepted) return loaded;
      const { snapshot } = (await emu.control.POST("/_emulator/snapshots", {})).data!;
      await emu.control.POST("/_emulator/reset");
      await emu.control.POST("/_emulator/snapshots/{id}/restore", { params: { path: { id: snapshot.id } } });
      await emu.control.DELETE("/_emulator/snapshots/{id}", { params: { path: { id: snapshot.id } } });
      return { accepted: true, rows: rowsOf(emu.runtime.db, inputText(source)) };
    },
  };

  return {
    run: (name, source) => loaders[name](source),
    async all(source) {
      const out = {} as Record<LoaderName, Outcome>;
      for (const name of LOADERS) out[name] = await loaders[name](source);
      return out;
    },
    async close() {
      await stopTestEmulator(emu);
      rmSync(scratchRoot, { recursive: true, force: true });
    },
  };
}
