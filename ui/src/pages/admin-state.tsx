/**
 * The admin's "Reset and fixtures" tab: reset to the start-up fixture, export the whole state as the archive
 * `ext export` writes, and load a fixture (.json) or an export (.tar) back through `POST /_emulator/seed`.
 */

import { useState } from "preact/hooks";
import { formatBytes, plural } from "../../../common/text/format";
import {
  admin,
  EXPORT_MEDIA_TYPE,
  exportArchive,
  type Fixture,
  forgetDashboardKeys,
  type SeedReport,
  seedArchive,
  seedFixture,
} from "../api";
import { FieldError, invalidProps, Status } from "../components";
import { checkField } from "../field-rules";
import { useAction } from "../hooks";
import type { PageProps } from "../page";

/** The one rule a fixture's text has before the server reads it: it is JSON. */
function parseFixture(text: string, what: string): { fixture: Fixture } | { problem: string } {
  const missing = checkField({ required: true }, what, text);
  if (missing) return { problem: missing };
  try {
    // The server checks the fixture whole and names each bad field; here only the syntax.
    return { fixture: JSON.parse(text) as Fixture };
  } catch (e) {
    return { problem: `${what} is not valid JSON${whereBroken(text, e instanceof Error ? e.message : "")}.` };
  }
}

/** Where the parser stopped, from what the browser's message gives (a position, the end, or the token). */
function whereBroken(text: string, message: string): string {
  const at = /position (\d+)/.exec(message);
  if (at) {
    const before = text.slice(0, Number(at[1]));
    return ` (line ${before.split("\n").length}, column ${before.length - before.lastIndexOf("\n")})`;
  }
  if (/unexpected end/i.test(message)) return " (it ends too early)";
  const token = /unexpected token '(.)'/i.exec(message);
  return token ? ` (an unexpected ${token[1]})` : "";
}

/** What a load did, in words. */
function loadedMessage(what: string, report: SeedReport): string {
  const keys = report.keys.filter((k) => k.created).length;
  if (report.accountsCreated + report.extensionsCreated + keys === 0)
    return `${what} loaded: everything in it already existed, so nothing changed.`;
  const made = [
    plural(report.accountsCreated, "account"),
    plural(report.extensionsCreated, "extension"),
    plural(keys, "API key"),
  ];
  return `${what} loaded: ${made.join(", ")} created.`;
}

/** An export's file name, with the time it was taken (no colons: not every file system allows them). */
const exportName = () =>
  `ext-export-${new Date()
    .toISOString()
    .replace(/\.\d+Z$/, "Z")
    .replaceAll(":", "-")}.tar`;

let lastDownload: string | null = null;
/** Hands a blob to the browser as a download; its URL lives until the next one. */
function download(blob: Blob, name: string) {
  if (lastDownload) URL.revokeObjectURL(lastDownload);
  lastDownload = URL.createObjectURL(blob);
  const link = document.createElement("a");
  link.href = lastDownload;
  link.download = name;
  link.hidden = true;
  document.body.append(link);
  link.click();
  link.remove();
}

export function StatePanel({ refreshAccounts }: PageProps) {
  return (
    <>
      <ResetSection refreshAccounts={refreshAccounts} />
      <ExportSection />
      <LoadSection refreshAccounts={refreshAccounts} />
    </>
  );
}

function ResetSection({ refreshAccounts }: Pick<PageProps, "refreshAccounts">) {
  const [confirm, setConfirm] = useState(false);
  const action = useAction();
  return (
    <section aria-labelledby="reset-h">
      <h2 id="reset-h">Reset</h2>
      <p>
        Wipes every row, bundle, rate window, fault, the request log and the clock, then loads the start-up fixture
        again.
      </p>
      {!confirm ? (
        <button type="button" class="danger" onClick={() => setConfirm(true)}>
          Reset…
        </button>
      ) : (
        <p>
          Wipe everything?{" "}
          <button
            type="button"
            class="danger"
            onClick={() => {
              setConfirm(false);
              void action.run(async () => {
                await admin((c) => c.POST("/_emulator/reset"));
                forgetDashboardKeys();
                refreshAccounts();
              }, "Emulator reset.");
            }}
          >
            Yes, reset
          </button>{" "}
          <button type="button" class="secondary" onClick={() => setConfirm(false)}>
            Cancel
          </button>
        </p>
      )}
      <Status message={action.message} />
    </section>
  );
}

function ExportSection() {
  const [secrets, setSecrets] = useState(false);
  const action = useAction();
  return (
    <section aria-labelledby="export-h">
      <h2 id="export-h">Export state</h2>
      <p>
        Everything as one <code>.tar</code>: <code>fixture.json</code> (accounts, keys as hashes, extensions, versions,
        installs, overrides, limit requests, secret names, the clock) and each bundle. Load it back below, with{" "}
        <code>ext seed</code> or <code>ext serve --seed</code>.
      </p>
      <label class="check">
        <input
          type="checkbox"
          checked={secrets}
          aria-describedby="export-secrets-hint"
          onChange={(e) => setSecrets(e.currentTarget.checked)}
        />{" "}
        Include secret values
      </label>
      <p id="export-secrets-hint" class="hint">
        In plain text, in fixture.json: keep such an export private. Without them, a loaded export has the secrets'
        names only.
      </p>
      <p>
        <button
          type="button"
          disabled={action.busy}
          onClick={() => {
            const name = exportName();
            void action.run(async () => {
              const archive = await exportArchive(secrets);
              download(archive, name);
              action.done(`Exported ${name} (${formatBytes(archive.size)}).`);
            });
          }}
        >
          Export state
        </button>
      </p>
      <Status message={action.message} />
    </section>
  );
}

function LoadSection({ refreshAccounts }: Pick<PageProps, "refreshAccounts">) {
  const [file, setFile] = useState<File | null>(null);
  const [fixture, setFixture] = useState("");
  const [problems, setProblems] = useState<{ file?: string; text?: string }>({});
  // One answer per form, shown by the form that asked: a file's refusal is not read under the paste box.
  // A refused fixture lists every problem, as `ext seed` does, not only the first.
  const fileAction = useAction({ listDetails: true });
  const textAction = useAction({ listDetails: true });
  const busy = fileAction.busy || textAction.busy;
  const loaded = (action: ReturnType<typeof useAction>, what: string, report: SeedReport) => {
    refreshAccounts();
    action.done(loadedMessage(what, report));
  };
  return (
    <section aria-labelledby="load-h">
      <h2 id="load-h">Load a fixture or an export</h2>
      <p>
        What already exists is left as it is; a file the server refuses changes nothing. Load an export into an empty
        emulator (<code>ext serve --empty</code>, or a reset of one) to get its exact state.
      </p>
      <form
        class="stack"
        noValidate
        onSubmit={async (e) => {
          e.preventDefault();
          fileAction.clear();
          textAction.clear();
          if (!file) return setProblems((p) => ({ ...p, file: "Choose a fixture (.json) or an export (.tar) file." }));
          const isArchive = file.name.toLowerCase().endsWith(".tar") || file.type === EXPORT_MEDIA_TYPE;
          const text = isArchive ? "" : await file.text();
          // A file with nothing in it (blank, for a fixture) is named as such, not as a missing field.
          if (file.size === 0 || (!isArchive && text.trim() === "")) {
            setProblems((p) => ({
              ...p,
              file: `${file.name} is empty: choose a file with a fixture or an export in it.`,
            }));
            return document.getElementById("seed-file")?.focus();
          }
          if (isArchive) {
            setProblems((p) => ({ ...p, file: undefined }));
            return void fileAction.run(async () => loaded(fileAction, file.name, await seedArchive(file)));
          }
          const parsed = parseFixture(text, file.name);
          if ("problem" in parsed) {
            setProblems((p) => ({ ...p, file: parsed.problem }));
            return document.getElementById("seed-file")?.focus();
          }
          setProblems((p) => ({ ...p, file: undefined }));
          await fileAction.run(async () => loaded(fileAction, file.name, await seedFixture(parsed.fixture)));
        }}
      >
        <label for="seed-file">Fixture (.json) or export (.tar)</label>
        <input
          id="seed-file"
          type="file"
          accept=".json,.tar,application/json,application/x-tar"
          onChange={(e) => setFile(e.currentTarget.files?.[0] ?? null)}
          {...invalidProps("seed-file-error", problems.file)}
        />
        <FieldError id="seed-file-error" problem={problems.file} />
        <button type="submit" disabled={busy}>
          Load file
        </button>
        <Status message={fileAction.message} />
      </form>
      <form
        class="stack"
        noValidate
        onSubmit={async (e) => {
          e.preventDefault();
          fileAction.clear();
          textAction.clear();
          const parsed = parseFixture(fixture, "The fixture");
          if ("problem" in parsed) {
            setProblems((p) => ({ ...p, text: parsed.problem }));
            return document.getElementById("fixture")?.focus();
          }
          setProblems((p) => ({ ...p, text: undefined }));
          await textAction.run(async () => loaded(textAction, "Fixture", await seedFixture(parsed.fixture)));
        }}
      >
        <label for="fixture">Or paste a fixture (JSON, the format of --seed)</label>
        <textarea
          id="fixture"
          rows={8}
          value={fixture}
          onInput={(e) => setFixture(e.currentTarget.value)}
          placeholder='{"accounts":[{"id":"acc_new","name":"New","apiKeys":[{"name":"ci","scopes":["*"]}]}]}'
          {...invalidProps("fixture-error", problems.text)}
        />
        <FieldError id="fixture-error" problem={problems.text} />
        <button type="submit" disabled={busy}>
          Load fixture
        </button>
        <Status message={textAction.message} />
      </form>
    </section>
  );
}
