/**
 * The shadow's map from the upstream's ids to the ones its emulator made for the same requests, learnt from
 * answers compared side by side and applied to later paths and bodies before they are replayed. The upstream
 * chooses what it answers, so only values shaped like ids are learnt (a short or empty one would rewrite every
 * later request), and the map is bounded.
 */
import { isObject } from "./shape";

/** What an id looks like, on either side: at least 8 of the characters ids are made of. */
const ID_SHAPE = /^[A-Za-z0-9_-]{8,128}$/;
/** More than this many ids in one proxy's life: the oldest are forgotten first. */
export const MAX_IDS = 10_000;

export interface IdMap {
  /** Learns `up`'s ids (fields `id` and `…Id`) as `ext`'s at the same places. */
  learn(up: unknown, ext: unknown): void;
  /** `text` with every learnt upstream id replaced by its emulator's. */
  mapText(text: string): string;
  get(up: string): string | undefined;
  readonly size: number;
}

export function idMap(): IdMap {
  const ids = new Map<string, string>();
  function learn(up: unknown, ext: unknown): void {
    if (!isObject(up) || !isObject(ext)) return;
    for (const [k, v] of Object.entries(up)) {
      const w = ext[k];
      if (typeof v === "string" && typeof w === "string" && (k === "id" || k.endsWith("Id"))) {
        if (v !== w && ID_SHAPE.test(v) && ID_SHAPE.test(w)) remember(v, w);
      } else if (isObject(v)) learn(v, w);
    }
  }
  function remember(up: string, ext: string): void {
    ids.delete(up);
    ids.set(up, ext);
    if (ids.size > MAX_IDS) ids.delete(ids.keys().next().value as string);
  }
  return {
    learn,
    mapText(text) {
      let out = text;
      for (const [up, ext] of ids) out = out.split(up).join(ext);
      return out;
    },
    get: (up) => ids.get(up),
    get size() {
      return ids.size;
    },
  };
}
