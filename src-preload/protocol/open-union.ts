// Open unions: data written by other programs (Responses API items, rollout lines) may carry `type`s this
// version does not know. Such entries must parse and survive a round trip unchanged, so each open union is
// `known variants | catch-all`. The catch-all's tag is a branded string: only parsing produces one, so a
// misspelt `type` in hand-built data is a compile error rather than a silent "unknown". TypeScript cannot
// exclude a string-typed tag when narrowing, so narrow with the union's `isKnown…` guard first, then switch
// on `type` over the known variants.
import { z } from 'zod';

/**
 * A `type` string that is none of `known`, branded `Brand`. A tag that IS known fails here (so a broken
 * known entry reports its own field errors instead of passing as unknown).
 */
export function unknownTag<const Brand extends string>(known: readonly string[], _brand: Brand) {
  const knownTags = new Set(known);
  return z
    .string()
    .refine((tag) => !knownTags.has(tag), { message: 'a known type, checked by its own variant', abort: true })
    .brand<Brand>();
}
