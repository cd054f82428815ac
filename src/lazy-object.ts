/**
 * An object whose every property is made by its maker the first time it is read, then kept (a plain getter
 * replaced by the value): for the runtime's services, which prepare their SQL statements when built, and for
 * a set of prepared statements of which one use needs only a few.
 */
export function lazyProperties<M extends Record<string, () => unknown>>(
  makers: M,
): { readonly [K in keyof M]: ReturnType<M[K]> } {
  const out = {} as { [K in keyof M]: ReturnType<M[K]> };
  for (const key of Object.keys(makers)) {
    Object.defineProperty(out, key, {
      configurable: true,
      enumerable: true,
      get() {
        const value = makers[key]!();
        Object.defineProperty(out, key, { value, enumerable: true });
        return value;
      },
    });
  }
  return out;
}
