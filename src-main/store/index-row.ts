// Reading a row of the thread index (schema: index-db.ts) with each column's type checked. Apart from
// thread-index.ts so that the start-up check's worker (index-changes.ts) reads rows without loading the rest.
import { StoreError } from './errors';

class BadRow extends StoreError {
  constructor(column: string) {
    super(`the thread index has an unreadable value in column "${column}"; run \`weft threads reindex\``);
  }
}

/** Typed access to a row's columns; a value of the wrong type is an error naming its column. */
export function columns(r: unknown): {
  str(k: string): string;
  num(k: string): number;
  opt(k: string): string | null;
  raw(k: string): unknown;
} {
  if (typeof r !== 'object' || r === null) throw new BadRow('*');
  const o: Record<string, unknown> = { ...r };
  return {
    str(k) {
      const v = o[k];
      if (typeof v !== 'string') throw new BadRow(k);
      return v;
    },
    num(k) {
      const v = o[k];
      if (typeof v !== 'number') throw new BadRow(k);
      return v;
    },
    opt(k) {
      const v = o[k];
      if (v !== null && typeof v !== 'string') throw new BadRow(k);
      return v;
    },
    raw: (k) => o[k],
  };
}
