/**
 * The one way a part of the server is made lazily: a plain function that builds it on its first call and then
 * returns what it built. The app's parts (src/app.ts) are made so; a start builds only what its first answers need.
 */
export function onFirstUse<T>(build: () => T): () => T {
  let built: { value: T } | null = null;
  return () => (built ??= { value: build() }).value;
}
