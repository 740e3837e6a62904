// Copy-on-write for reducing a batch of notifications: within one batch each container is copied at most
// once, and later changes in the same batch mutate that fresh copy. Objects the batch did not copy are
// never mutated, so every state handed out before the batch stays intact.

export interface Draft {
  readonly fresh: WeakSet<object>;
}

export function newDraft(): Draft {
  return { fresh: new WeakSet() };
}

/** `value` itself when this batch made it, else a shallow copy this batch now owns. */
export function own<T extends object>(draft: Draft, value: T): T {
  if (draft.fresh.has(value)) return value;
  const copy = { ...value };
  draft.fresh.add(copy);
  return copy;
}

export function ownArray<T>(draft: Draft, value: T[]): T[] {
  if (draft.fresh.has(value)) return value;
  const copy = [...value];
  draft.fresh.add(copy);
  return copy;
}

/** Marks an object built by this batch as its own. */
export function fresh<T extends object>(draft: Draft, value: T): T {
  draft.fresh.add(value);
  return value;
}
