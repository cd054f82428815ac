/**
 * What every published package says about where it comes from, taken from the root package.json (the one
 * place it is written): license, repository, homepage, bugs; and the LICENSE file beside it.
 */
import { copyFileSync } from "node:fs";
import { join } from "node:path";
import rootPkg from "../../package.json" with { type: "json" };
import { ROOT } from "./compile";

export const PACKAGE_METADATA = {
  license: rootPkg.license,
  repository: rootPkg.repository,
  homepage: rootPkg.homepage,
  bugs: rootPkg.bugs,
} as const;

/** `pkg` with the metadata fields set (after its description, as npm shows them), and LICENSE copied into `dir`. */
export function withPackageMetadata(pkg: Record<string, unknown>, dir: string): Record<string, unknown> {
  copyFileSync(join(ROOT, "LICENSE"), join(dir, "LICENSE"));
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(pkg)) {
    if (key in PACKAGE_METADATA) continue;
    out[key] = value;
    if (key === "description") Object.assign(out, PACKAGE_METADATA);
  }
  return "description" in out ? out : { ...out, ...PACKAGE_METADATA };
}
