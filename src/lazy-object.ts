/**
 * `lazyObject(make)` stands for the object `make()` returns, made the first time one of its properties is read.
 * A service prepares its SQL statements when it is built, and drizzle's query building is a large part of a
 * cold start: a service no start-up step uses is built by the first request that needs it instead.
 * Only for plain objects of closures (what the services are): their methods never rely on `this`.
 */
export function lazyObject<T extends object>(make: () => T): T {
  let made: T | undefined;
  const real = () => {
    made ??= make();
    return made;
  };
  return new Proxy({} as T, {
    get: (_, key) => Reflect.get(real(), key),
    has: (_, key) => Reflect.has(real(), key),
    ownKeys: () => Reflect.ownKeys(real()),
    getOwnPropertyDescriptor: (_, key) => Reflect.getOwnPropertyDescriptor(real(), key),
    // Writes go to the object too (a test replacing a method): the empty stand-in must never hold a property.
    set: (_, key, value) => Reflect.set(real(), key, value),
    defineProperty: (_, key, descriptor) => Reflect.defineProperty(real(), key, descriptor),
    deleteProperty: (_, key) => Reflect.deleteProperty(real(), key),
  });
}

/**
 * An object whose every property is made by its maker the first time it is read, then kept: for a set of
 * prepared statements of which one use needs only a few.
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
