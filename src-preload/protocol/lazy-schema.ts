// Schemas built on first use. The protocol declares about 1,200 zod schemas; building them all when the
// module is imported cost tens of milliseconds of every start, though a process uses few of them (`weft
// apply-patch` none, an app server answering `initialize` and `thread/list` a handful). Each top-level
// schema is declared as `lazySchema(() => z.…)`: what is exported is a stand-in of the very type `build`
// returns, and the first touch of any of its properties (`parse`, `_zod`, `shape`, `optional()`…) builds
// the schema once and forwards every access to it from then on. A schema that names another one inside its
// `build` builds that one only when it is built itself.
import { z } from 'zod';

/**
 * The stand-in of a schema not built yet. Its target is a bare object: the proxy's traps answer every
 * question from the built schema, so the target only has to satisfy the Proxy invariants (it stays
 * extensible and holds no property, so any answer about properties is allowed once made configurable).
 */
export function lazySchema<T extends z.ZodType>(build: () => T): T {
  let built: T | undefined;
  const real = (): T => {
    if (built === undefined) {
      built = build();
      // Metadata (`.meta()`, `.describe()`) is kept by schema identity: the stand-in, which is what other
      // schemas and the JSON Schema export hold, carries the built schema's own.
      const meta = z.globalRegistry.get(built);
      if (meta !== undefined) z.globalRegistry.add(standIn, meta);
      // zod's JSON Schema export calls a schema's own `processJSONSchema`, which closes over the built object,
      // not the stand-in the export's traversal met (and keys its bookkeeping by); without it, the export
      // calls the processor of the schema's type with the object it met.
      Reflect.deleteProperty(built._zod, 'processJSONSchema');
    }
    return built;
  };
  const handler: ProxyHandler<object> = {
    // Properties are read from the built schema with the stand-in as receiver: zod binds a method to the
    // object it is read from, so a schema derived from this one (`.optional()`, `.extend()`) wraps the
    // stand-in, and every schema has one identity (the JSON Schema export names schemas by identity).
    get: (_target, key) => Reflect.get(real(), key, standIn),
    set: (_target, key, value) => Reflect.set(real(), key, value),
    has: (_target, key) => Reflect.has(real(), key),
    ownKeys: () => Reflect.ownKeys(real()),
    getOwnPropertyDescriptor: (_target, key) => {
      const descriptor = Reflect.getOwnPropertyDescriptor(real(), key);
      return descriptor === undefined ? undefined : { ...descriptor, configurable: true };
    },
    defineProperty: (_target, key, descriptor) => Reflect.defineProperty(real(), key, descriptor),
    deleteProperty: (_target, key) => Reflect.deleteProperty(real(), key),
    getPrototypeOf: () => Reflect.getPrototypeOf(real()),
  };
  // The stand-in answers as the schema `build` returns (see the traps): it is typed as that schema.
  const standIn = new Proxy<object>({}, handler) as T;
  return standIn;
}

/** A value derived from schemas (the tags of a union's variants…), computed on its first use and kept. */
export function lazyValue<T>(make: () => T): () => T {
  let made: { value: T } | undefined;
  return () => (made ??= { value: make() }).value;
}
