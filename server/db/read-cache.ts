/**
 * Answers computed from the database, kept until its generation moves (server/db/generation.ts: any commit; the
 * server is its database's only writer). A GET-heavy test suite then pays for a query and its mapping once per
 * change, not once per request, and no service has to remember to invalidate anything. What a computation
 * throws (a 404) is not kept. Bounded: past `max` keys the cache starts over, so keys a client invents
 * cannot grow memory. Values are shared between requests: callers never mutate them.
 */
import type { DbGeneration } from "./generation";

export const READ_CACHE_MAX = 256;

export interface ReadCache<V> {
  get(key: string, compute: () => V): V;
}

export function createReadCache<V>(generation: DbGeneration, max = READ_CACHE_MAX): ReadCache<V> {
  const entries = new Map<string, { generation: number; value: V }>();
  return {
    get(key, compute) {
      // Taken before computing: a commit in between leaves the entry marked old, never a stale one marked new.
      const now = generation.current();
      const hit = entries.get(key);
      if (hit && hit.generation === now) return hit.value;
      const value = compute();
      if (!hit && entries.size >= max) entries.clear();
      entries.set(key, { generation: now, value });
      return value;
    },
  };
}
