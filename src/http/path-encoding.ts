/**
 * A path whose percent-encoding is broken (`%ZZ`, a lone `%`) or decodes to bytes that are not UTF-8
 * (`%FF`, the overlong `%C0%AF`) names nothing: the router would hand its route an undecodable parameter
 * (a 422 "id: Expected string" that blames the client's id). It is refused as what it is, a malformed path,
 * before routing and after the request gates (who may call still comes first).
 */
import { Elysia } from "elysia";
import { errors } from "../errors/catalog";
import { requestContextOf } from "./request-context";

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

export function malformedPathGuard() {
  return new Elysia({ name: "malformed-path" }).onRequest(({ request }) => {
    const path = requestContextOf(request)?.path;
    if (path !== undefined && !isWellFormedPath(path)) throw errors.malformedPath(path);
  });
}
