import { ValueErrorType } from "@sinclair/typebox/errors";
import { Value } from "@sinclair/typebox/value";
import { ReadRefusal } from "../../common/files/safe-read";
import { parseJsonText } from "../../common/json/json-reader";
import { KEYED_HASH_PREFIX } from "../auth/keys";
import { DETAILS_MAX, errors, MORE_PROBLEMS } from "../errors/catalog";
import { problemOf } from "../errors/value-errors";
import { memberEmail } from "../resources/accounts/member-writer";
import { asStringError } from "../schema/text-length";
import { FixtureError, type FixtureProblem, problemFromApiError } from "./fixture-error";
import { checkAccountInstants, checkInstants } from "./instants";
import { jsonSyntaxProblem } from "./json-syntax";
import { collectingPass } from "./large-pass";
import { FIXTURE_FORMAT_VERSION, Fixture, FixtureAccount } from "./model";
import { checkApiRules } from "./rules";

export { FixtureError, type FixtureProblem };

/** What to write for each required field, by its path with the indices left out. */
const REQUIRED_HINTS: Record<string, string> = {
  accounts: 'list the accounts to load, e.g. {"accounts": [{"id": "acc_demo", "name": "Demo"}]}',
  "accounts[].id": 'give the account an id (letters, digits, _ and -), e.g. "acc_demo"',
  "accounts[].name": 'give the account a display name, e.g. "Demo Developer"',
  "accounts[].apiKeys[].name": 'name the key (unique in its account), e.g. "ci"',
  "accounts[].apiKeys[].scopes": 'list the scopes of this key, e.g. ["*"]',
  "accounts[].extensions[].name": 'name the extension, e.g. "Sound Board"',
  "accounts[].extensions[].pricing.type": 'the only pricing is {"type": "free"}',
  "accounts[].extensions[].versions[].version": 'give the version label, e.g. "1.0.0"',
  "accounts[].extensions[].installs.byVersion": 'give the installs per version label, e.g. {"1.0.0": 2500}',
  "accounts[].teamMembers[].email": 'give the member\'s email, e.g. "dev@example.com"',
  "accounts[].teamMembers[].role": 'give the member\'s role, e.g. "developer"',
};

/** A schema problem of a fixture; a missing field says what to write there. */
function fixtureProblemOf(e: Parameters<typeof problemOf>[0]): FixtureProblem {
  const problem = problemOf(e);
  const hint =
    e.type === ValueErrorType.ObjectRequiredProperty && REQUIRED_HINTS[problem.path.replace(/\[\d+\]/g, "[]")];
  return hint ? { path: problem.path, message: `${problem.message}: ${hint}` } : problem;
}

/**
 * A keyHash without the data directory's HMAC (a bare SHA-256, as data directories made before keyed hashes
 * stored) would authenticate its key on any server that loads it: refused.
 */
const bareHash = (i: number, j: number): FixtureProblem => ({
  path: `accounts[${i}].apiKeys[${j}].keyHash`,
  message: `a bare SHA-256 would let the key in on any server; give the key itself (\`key\`) or an \`${KEYED_HASH_PREFIX}\` hash exported from the data directory it is loaded into`,
});

/** Reports an id given a second time in the fixture, for each kind of row (`duplicate key id "k1"`). */
function idsOnce(problems: FixtureProblem[]) {
  const seen = new Map<string, Set<string>>();
  return (kind: string, id: string | undefined, path: string) => {
    if (id === undefined) return;
    let ids = seen.get(kind);
    if (!ids) seen.set(kind, (ids = new Set()));
    if (ids.has(id)) problems.push({ path, message: `duplicate ${kind} id "${id}"` });
    ids.add(id);
  };
}

/** A pending limit request carries no decision (the only way to one is an admin's approve or reject). */
function decisionProblem(r: NonNullable<Fixture["accounts"][number]["limitRequests"]>[number]) {
  if (r.status !== "pending") return null;
  if (r.decidedAt !== undefined) return { field: "decidedAt", message: "a pending request has not been decided" };
  if (r.decisionReason !== undefined)
    return { field: "decisionReason", message: "a pending request has not been decided" };
  return null;
}

/**
 * Whether `data` is of the fixture format: the document without its accounts, then account by account (a large
 * fixture's check collects its garbage as it goes: server/seed/large-pass.ts).
 */
function passesSchema(data: unknown): boolean {
  const accounts = (data as { accounts?: unknown } | null)?.accounts;
  if (!data || typeof data !== "object" || Array.isArray(data) || !Array.isArray(accounts))
    return Value.Check(Fixture, data);
  if (!Value.Check(Fixture, { ...data, accounts: [] })) return false;
  const account = FixtureAccount;
  const collect = collectingPass();
  return accounts.every((acc) => {
    collect();
    return Value.Check(account, acc);
  });
}

/** Validates parsed JSON against the fixture format; one message per bad field. */
export function validateFixture(data: unknown, source = "fixture"): Fixture {
  // Before the schema: a newer export is refused for what it is, not for the fields this version does not know.
  const format = (data as { formatVersion?: unknown } | null)?.formatVersion;
  if (typeof format === "number" && format > FIXTURE_FORMAT_VERSION)
    throw new FixtureError(
      [
        {
          path: "formatVersion",
          message: `format ${format} is newer than this emulator reads (formats 1 to ${FIXTURE_FORMAT_VERSION}): load it with a newer ext`,
        },
      ],
      source,
    );
  const problems: FixtureProblem[] = [];
  const paths = new Set<string>();
  // The check first: a valid fixture (the usual case) is not walked again for errors it does not have, which
  // for a large one is most of its validation time.
  const schemaErrors = passesSchema(data) ? [] : Value.Errors(Fixture, data);
  for (const e of schemaErrors) {
    const problem = fixtureProblemOf(asStringError(e));
    // The first problem of a field is the useful one ("required" rather than "required" + "must be a list").
    if (paths.has(problem.path)) continue;
    paths.add(problem.path);
    // Bounded: a fixture with 60,000 bad fields is reported by its first ones, and the walk stops there.
    if (problems.length === DETAILS_MAX) {
      problems.push({ path: "(fixture)", message: MORE_PROBLEMS });
      break;
    }
    problems.push(problem);
  }
  if (problems.length > 0) throw new FixtureError(problems, source);
  const fixture = data as Fixture;
  checkInstants(fixture, problems);
  // An id names one row: given twice, the second entry would be skipped as existing, its fields lost unsaid.
  const once = idsOnce(problems);
  // One account at a time, every rule on it: a large fixture's garbage is collected as the pass goes.
  const collect = collectingPass();
  fixture.accounts.forEach((acc, i) => {
    collect();
    checkAccountInstants(acc, `accounts[${i}]`, problems);
    checkApiRules(acc, `accounts[${i}]`, problems);
    once("account", acc.id, `accounts[${i}].id`);
    const keyNames = new Set<string>();
    acc.apiKeys?.forEach((k, j) => {
      once("key", k.id, `accounts[${i}].apiKeys[${j}].id`);
      if (k.keyHash !== undefined && !k.keyHash.startsWith(KEYED_HASH_PREFIX)) problems.push(bareHash(i, j));
      // Only keys found again by their name must have one of their own. A key of an export (with its id or
      // hash) is found by id, and may share its name: a revoked one with the key that replaced it, or two
      // "dashboard" keys made on two data directories.
      if (k.revokedAt !== undefined || k.id !== undefined || k.keyHash !== undefined) return;
      if (keyNames.has(k.name))
        problems.push({ path: `accounts[${i}].apiKeys[${j}].name`, message: `duplicate key name "${k.name}"` });
      keyNames.add(k.name);
    });
    // The members route refuses an email already in the account (any case): so is a second entry of one.
    const emails = new Set<string>();
    acc.teamMembers?.forEach((m, j) => {
      once("member", m.id, `accounts[${i}].teamMembers[${j}].id`);
      const email = memberEmail(m.email);
      if (emails.has(email))
        problems.push(problemFromApiError(errors.memberExists(email), `accounts[${i}].teamMembers[${j}].email`));
      emails.add(email);
    });
    acc.limitRequests?.forEach((r, j) => {
      once("limit request", r.id, `accounts[${i}].limitRequests[${j}].id`);
      const decision = decisionProblem(r);
      if (decision)
        problems.push({ path: `accounts[${i}].limitRequests[${j}].${decision.field}`, message: decision.message });
    });
    acc.extensions?.forEach((x, j) => {
      // Two entries for one extension would be merged silently, the second's installs replacing the first's.
      once("extension", x.id, `accounts[${i}].extensions[${j}].id`);
      // A second entry with the label would be skipped without a word (its status and changelog lost).
      const labels = new Set<string>();
      x.versions?.forEach((v, k) => {
        once("version", v.id, `accounts[${i}].extensions[${j}].versions[${k}].id`);
        if ((v.status === "rejected" || v.status === "archived") && v.id === undefined)
          problems.push({
            path: `accounts[${i}].extensions[${j}].versions[${k}].status`,
            message: `a ${v.status} version comes from an export (with its id); write approved or pending`,
          });
        if (labels.has(v.version))
          problems.push({
            path: `accounts[${i}].extensions[${j}].versions[${k}].version`,
            message: `duplicate version label "${v.version}"`,
          });
        labels.add(v.version);
      });
    });
  });
  if (problems.length > 0) throw new FixtureError(problems, source);
  return fixture;
}

/** A fixture's JSON text, parsed (not yet validated); a syntax error is a FixtureError at its line and column. */
export function parseFixtureJson(text: string, source = "fixture"): unknown {
  // A byte-order mark (some Windows editors write one) is not JSON, but it is not the user's mistake either.
  const body = text.startsWith("\uFEFF") ? text.slice(1) : text;
  let data: unknown;
  try {
    data = parseJsonText(body);
  } catch (e) {
    if (e instanceof ReadRefusal) throw new FixtureError([{ path: "(fixture)", message: `it ${e.message}` }], source);
    const syntax = jsonSyntaxProblem(body) ?? {
      line: 1,
      column: 1,
      message: (e as Error).message.replace(/^JSON Parse error: /, ""),
      excerpt: "",
    };
    throw new FixtureError(
      [{ path: `line ${syntax.line}, column ${syntax.column}`, message: `not valid JSON: ${syntax.message}` }],
      source,
      syntax,
    );
  }
  return data;
}

export function parseFixtureText(text: string, source = "fixture"): Fixture {
  return validateFixture(parseFixtureJson(text, source), source);
}
