/**
 * A path whose percent-encoding is broken (`%ZZ`, a lone `%`) or decodes to bytes that are not UTF-8
 * (`%FF`, the overlong `%C0%AF`) names nothing: the router would hand its route an undecodable parameter
 * (a 422 "id: Expected string" that blames the client's id). The pre-routing step (server/http/pre-routing.ts)
 * refuses it as what it is, a malformed path, before routing and after the gates (who may call comes first).
 */

/** True when every `%XX` of the path is a hex escape and the escapes decode to UTF-8. */
export function isWellFormedPath(path: string): boolean {
  if (!path.includes("%")) return true;
  try {
    decodeURIComponent(path);
    return true;
  } catch {
    return false;
  }
}
