/** Permission scopes of developer API keys (api-decisions.md, Auth). */
export const SCOPES = [
  "extensions:read",
  "extensions:write",
  "versions:write",
  "secrets:read",
  "secrets:write",
  "*",
] as const;

export type Scope = (typeof SCOPES)[number];

export function hasScope(granted: readonly string[], needed: Scope): boolean {
  return granted.includes("*") || granted.includes(needed);
}
