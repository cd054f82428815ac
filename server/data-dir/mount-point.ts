/**
 * Whether a directory is the root of a mounted file system (a container volume): it sits on another device
 * than its parent. A missing directory is no mount point.
 */
import { statSync } from "node:fs";
import { dirname, resolve } from "node:path";

export function isMountPoint(dir: string): boolean {
  const path = resolve(dir);
  const parent = dirname(path);
  try {
    const own = statSync(path);
    if (!own.isDirectory()) return false;
    return parent === path || own.dev !== statSync(parent).dev;
  } catch {
    return false;
  }
}
