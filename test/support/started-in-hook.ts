/**
 * The object a test sees for something its hooks start and stop (a scripted model server, a PostgreSQL server): it
 * forwards every property to what `current()` holds now, methods bound to it, and throws, naming `what`, when it is
 * used where nothing is started (outside a test or hook of its block).
 */
export function startedInHook<T extends object>(current: () => T | undefined, what: string): T {
  return new Proxy({} as T, {
    get(_, key) {
      const now = current();
      if (!now) throw new Error(`${what} is used outside a test or hook of its block`);
      const value: unknown = Reflect.get(now, key);
      return typeof value === 'function' ? value.bind(now) : value;
    },
  });
}
