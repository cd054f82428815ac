/**
 * What every state the API can reach keeps, read off the rows: the oracle that an accepted fixture left no
 * state the API would have refused to make. Each rule is said once here, in SQL over the tables, not through
 * the services whose work it checks; the caps are resolved by the limits service (the one rule of overrides).
 */

import type { LimitKey } from "../../common/limits-catalog";
import { MAX_INSTALLS_PER_EXTENSION } from "../../server/resources/installs/model";
import type { Runtime } from "../../server/runtime/runtime";

type Row = Record<string, unknown>;

/** Every broken invariant of the runtime's state, one line each (none for a state the API could have made). */
export function stateProblems(runtime: Runtime): string[] {
  const q = (sql: string, ...params: string[]) => runtime.db.$client.query<Row, string[]>(sql).all(...params) as Row[];
  const out: string[] = [];
  const broken = (what: string, rows: Row[]) => {
    for (const r of rows) out.push(`${what}: ${JSON.stringify(r)}`);
  };
  const resolve = (key: LimitKey, accountId: string, extensionId: string | null = null) =>
    runtime.services.limits.resolve(key, { accountId, extensionId }).value;

  // A version's review state: what each status carries.
  broken(
    "version status and its timestamps",
    q(`SELECT id, status, approved_at, rejected_at, reject_reason, archived_at FROM versions WHERE NOT (
      (status = 'pending' AND approved_at IS NULL AND rejected_at IS NULL AND reject_reason IS NULL AND archived_at IS NULL)
      OR (status = 'approved' AND approved_at IS NOT NULL AND rejected_at IS NULL AND reject_reason IS NULL AND archived_at IS NULL)
      OR (status = 'rejected' AND approved_at IS NULL AND rejected_at IS NOT NULL AND reject_reason IS NOT NULL AND archived_at IS NULL)
      OR (status = 'archived' AND archived_at IS NOT NULL AND NOT (approved_at IS NOT NULL AND rejected_at IS NOT NULL)
          AND (rejected_at IS NULL) = (reject_reason IS NULL)))`),
  );
  // The current version is the newest approved one, of the extension itself.
  broken(
    "current version",
    q(`SELECT x.id, x.current_version_id, (SELECT v.id FROM versions v WHERE v.extension_id = x.id AND v.status = 'approved'
         ORDER BY v.seq DESC LIMIT 1) AS newest FROM extensions x WHERE x.current_version_id IS NOT
         (SELECT v.id FROM versions v WHERE v.extension_id = x.id AND v.status = 'approved' ORDER BY v.seq DESC LIMIT 1)`),
  );
  broken(
    "publicly listed without listed_at",
    q("SELECT id FROM extensions WHERE status = 'approved' AND visibility = 'public' AND listed_at IS NULL"),
  );
  broken(
    "install counters of a version never approved, or of another extension",
    q(`SELECT c.extension_id, c.version_id FROM install_counters c JOIN versions v ON v.id = c.version_id
       WHERE v.approved_at IS NULL OR v.extension_id <> c.extension_id`),
  );
  broken(
    "install totals",
    q(
      `SELECT extension_id, SUM(installed) AS installed, SUM(active) AS active FROM install_counters GROUP BY extension_id
       HAVING SUM(active) > SUM(installed) OR SUM(installed) > ${MAX_INSTALLS_PER_EXTENSION} OR MIN(active) < 0 OR MIN(installed) < 0`,
    ),
  );
  broken(
    "member email not as stored (trimmed, lowercase) or twice",
    q(`SELECT account_id, email FROM team_members WHERE email <> lower(trim(email))
       OR (SELECT COUNT(*) FROM team_members m WHERE m.account_id = team_members.account_id AND m.email = team_members.email) > 1`),
  );
  broken(
    "extension name not trimmed or blank",
    q("SELECT id, name FROM extensions WHERE name <> trim(name) OR trim(name) = ''"),
  );
  broken(
    "limit request decision",
    q(`SELECT id, status, decided_at, decision_reason FROM limit_requests WHERE
       (status = 'pending' AND (decided_at IS NOT NULL OR decision_reason IS NOT NULL))
       OR (status <> 'pending' AND decided_at IS NULL)`),
  );
  broken(
    "limit request for another account's extension",
    q(`SELECT r.id FROM limit_requests r LEFT JOIN extensions x ON x.id = r.extension_id
       WHERE r.extension_id IS NOT NULL AND (x.id IS NULL OR x.account_id <> r.account_id)`),
  );

  // The caps, each as it resolves for its scope.
  for (const { id } of q("SELECT id FROM accounts") as { id: string }[]) {
    const count = (sql: string) => Number((q(sql, id)[0] as { n: number }).n);
    const extensions = count("SELECT COUNT(*) AS n FROM extensions WHERE account_id = ?");
    if (extensions > resolve("max_extensions_per_account", id)) out.push(`extensions cap: ${id} has ${extensions}`);
    const keys = count("SELECT COUNT(*) AS n FROM api_keys WHERE account_id = ? AND revoked_at IS NULL");
    if (keys > resolve("max_api_keys", id)) out.push(`key cap: ${id} has ${keys} active`);
    const members =
      count("SELECT COUNT(*) AS n FROM team_members WHERE account_id = ?") +
      (count("SELECT COUNT(*) AS n FROM team_members WHERE account_id = ? AND role = 'owner'") > 0 ? 0 : 1);
    if (members > resolve("max_team_members", id)) out.push(`team cap: ${id} has ${members}`);
  }
  for (const { id, account_id } of q("SELECT id, account_id FROM extensions") as { id: string; account_id: string }[]) {
    const count = (sql: string) => Number((q(sql, id)[0] as { n: number }).n);
    const live = count("SELECT COUNT(*) AS n FROM versions WHERE extension_id = ? AND status <> 'archived'");
    if (live > resolve("max_versions_per_extension", account_id, id)) out.push(`version cap: ${id} has ${live}`);
    const secrets = count("SELECT COUNT(*) AS n FROM secrets WHERE extension_id = ?");
    if (secrets > resolve("max_secrets_per_extension", account_id, id)) out.push(`secret cap: ${id} has ${secrets}`);
  }
  // Every row's parent exists, and SQLite finds the file sound.
  broken("foreign keys", q("PRAGMA foreign_key_check"));
  const integrity = q("PRAGMA integrity_check");
  if (integrity[0]?.integrity_check !== "ok") broken("integrity", integrity);
  return out;
}

type Entry = Record<string, unknown>;

/** How an array's entries of the input are found again in the export: by id, else by what is unique there. */
const byIdElse =
  (list: string, field: string) =>
  (given: Entry, there: Entry): boolean =>
    given.id !== undefined ? given.id === there.id : stored(`${list}.${field}`, given[field]) === there[field];
const MATCH: Record<string, (given: Entry, there: Entry) => boolean> = {
  accounts: byIdElse("accounts", "id"),
  apiKeys: (given, there) =>
    given.id !== undefined
      ? given.id === there.id
      : given.keyHash !== undefined
        ? given.keyHash === there.keyHash
        : given.key !== undefined && there.key !== undefined
          ? given.key === there.key
          : given.name === there.name,
  teamMembers: byIdElse("teamMembers", "email"),
  extensions: byIdElse("extensions", "name"),
  versions: byIdElse("versions", "version"),
  installCounters: (given, there) => given.version === there.version,
  secrets: (given, there) => given.name === there.name,
  limitRequests: byIdElse("limitRequests", "id"),
};

/** Fields the export writes otherwise than they came, by design (each said in docs/behaviour.md). */
const NOT_COMPARED = new Set([
  "formatVersion", // the export's own
  "exportedAt",
  "clock", // set after the load; a running clock has moved on by the export
  "installs", // format 1's statistics: exported as installCounters
  "key", // a plaintext is exported as given, or as its hash when another fixture gave it
  "keyHash", // a hash from another data directory stays as given; one for a plaintext is this directory's
  "file", // bundles/<sha256>.tar.gz, derived
]);

/**
 * A value as the API stores it: what the one writer does to it — an extension's name and a limit request's reason
 * trimmed, a member's email trimmed and lowercase. `field` is the path's last list and field
 * (`extensions.name`).
 */
function stored(field: string, value: unknown): unknown {
  if (typeof value !== "string") return value;
  if (field === "extensions.name" || field === "limitRequests.reason") return value.trim();
  if (field === "teamMembers.email") return value.trim().toLowerCase();
  return value;
}

/** `extensions.name` for `accounts[0].extensions[2].name`. */
const fieldOf = (path: string) =>
  path
    .split(".")
    .slice(-2)
    .map((p) => p.replace(/\[\d+\]$/, ""))
    .join(".");

/**
 * Every field the input gave that the export of the loaded state does not give back as the API stores it:
 * a field accepted and then ignored (a currentVersionId nulled, a timestamp replaced) is a field the API would
 * not have stored that way.
 */
export function givenButNotKept(input: unknown, exported: unknown, at = ""): string[] {
  const out: string[] = [];
  if (Array.isArray(input)) {
    const key = at
      .split(".")
      .at(-1)!
      .replace(/\[\d+\]$/, "");
    const match = MATCH[key];
    // A list of values (scopes, warnings) is kept whole.
    if (!match) {
      if (JSON.stringify(input) !== JSON.stringify(exported))
        out.push(`${at}: given ${JSON.stringify(input)}, kept ${JSON.stringify(exported)}`);
      return out;
    }
    if (!Array.isArray(exported)) return [`${at}: not in the export`];
    input.forEach((entry, i) => {
      const found = exported.find((e) => match(entry as Entry, e as Entry));
      // An account's keys found by name may have been made by an earlier load (left as they were).
      if (found === undefined) out.push(`${at}[${i}]: not in the export`);
      else out.push(...givenButNotKept(entry, found, `${at}[${i}]`));
    });
    return out;
  }
  if (input === null || typeof input !== "object") return out;
  for (const [key, value] of Object.entries(input as Entry)) {
    if (NOT_COMPARED.has(key)) continue;
    const there = (exported as Entry | undefined)?.[key];
    const path = at ? `${at}.${key}` : key;
    if (value !== null && typeof value === "object") out.push(...givenButNotKept(value, there, path));
    else if (stored(fieldOf(path), value) !== there)
      out.push(`${path}: given ${JSON.stringify(value)}, kept ${JSON.stringify(there)}`);
  }
  return out;
}
