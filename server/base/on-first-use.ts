/**
 * The one way a part of the server is made lazily: a plain function that builds it on its first call and then
 * returns what it built. The app's parts (server/start/app.ts) are made so, the runtime's services (each a property
 * built with it: `onFirstUseEach`), and the services' SQL statements (each prepared by its first run); a start
 * builds only what its first answers need.
 */
export function onFirstUse<T>(build: () => T): () => T {
  let built: { value: T } | null = null;
  return () => (built ??= { value: build() }).value;
}

/**
 * An object whose every property is built by its maker through `onFirstUse`: read like a plain property, made on
 * its first read, then kept. For the runtime's services, which prepare their SQL statements when built.
 */
export function onFirstUseEach<M extends Record<string, () => unknown>>(
  makers: M,
): { readonly [K in keyof M]: ReturnType<M[K]> } {
  const parts = {} as { [K in keyof M]: ReturnType<M[K]> };
  for (const [key, make] of Object.entries(makers))
    Object.defineProperty(parts, key, { get: onFirstUse(make), enumerable: true });
  return parts;
}
