/**
 * A fixture account's extensions: the row (an export's as exported, a fixture's made as the API's create makes
 * it), its overrides, versions and install statistics (server/seed/versions.ts) and secrets, each through its
 * table's one writer, inside the loader's transaction.
 */
import { sha256Hex } from "../base/crypto";
import { errors } from "../errors/catalog";
import { apiRule, FixtureError, problemFromApiError } from "./fixture-error";
import type { Load } from "./load";
import type { FixtureExtension } from "./model";
import { loadInstalls, loadVersions } from "./versions";

/** Extensions without an id get one derived from account and name, so a reload finds them again. */
function fixtureExtensionId(accountId: string, name: string): string {
  return `ext_${sha256Hex(`${accountId}/${name}`).slice(0, 26)}`;
}

/**
 * Whether the entry gives the extension row's own state — an export's row (its timestamps), or a fixture's
 * status — which it then keeps; otherwise the extension reads as review would have left it after its versions.
 */
const givesItsState = (x: FixtureExtension) =>
  x.createdAt !== undefined || x.updatedAt !== undefined || x.status !== undefined;

export function loadExtension(load: Load, accountId: string, x: FixtureExtension, at: string): void {
  const { services, cipher } = load.deps;
  const extensions = services.extensions;
  const id = x.id ?? fixtureExtensionId(accountId, x.name);
  const owner = extensions.ownerOf(id);
  if (owner !== undefined && owner !== accountId)
    throw new FixtureError([problemFromApiError(errors.idTaken(id, "another account's extension"), at)]);
  if (owner === undefined) {
    // The entry's fields as they are (the writer takes those of the row), with what the load decides.
    const row = { ...x, id, accountId, createdAt: x.createdAt ?? load.now };
    apiRule(at, () => extensions.insertExtension(row, load.slugs));
    load.report.extensionsCreated++;
  }
  if (x.overrides && Object.keys(x.overrides).length > 0) services.overrides.setOverrides("extension", id, x.overrides);
  loadVersions(load, id, x, at, !givesItsState(x));
  loadInstalls(load, id, x, at);
  for (const [k, secret] of (x.secrets ?? []).entries()) {
    if (services.secrets.exists(id, secret.name)) continue;
    // A secret without a value (an export asked for without them) is loaded with an empty one.
    const sealed = cipher.seal(id, secret.name, secret.value ?? "");
    const stamps = { createdAt: secret.createdAt ?? load.now, updatedAt: secret.updatedAt };
    apiRule(`${at}.secrets[${k}]`, () =>
      services.secrets.insertSecret({ accountId, extensionId: id, name: secret.name, sealed, ...stamps }),
    );
  }
}
