// Reading a row of the thread index (schema: index-db.ts) with each column's type checked. Apart from
// thread-index.ts so that the start-up check's worker (index-changes.ts) reads rows without loading the rest.
import { StoreError } from './errors';

class BadRow extends StoreError {
  constructor(column: string) {
    super(`the thread index has an unreadable value in column "${column}"; run \`weft threads reindex\``);
  }
}

/**
 * Typed access to a row's columns; a value of the wrong type is an error naming its column. The row is read
 * where it is, and the methods are the class's (a list reads 26 rows: a copy of each and four closures per
 * row were a fifth of what a `thread/list` allocated).
 */
export class Columns {
  constructor(private readonly row: Readonly<Record<string, unknown>>) {}

  str(k: string): string {
    const v = this.row[k];
    if (typeof v !== 'string') throw new BadRow(k);
    return v;
  }

  num(k: string): number {
    const v = this.row[k];
    if (typeof v !== 'number') throw new BadRow(k);
    return v;
  }

  opt(k: string): string | null {
    const v = this.row[k];
    if (v !== null && typeof v !== 'string') throw new BadRow(k);
    return v;
  }

  raw(k: string): unknown {
    return this.row[k];
  }
}

/** The columns of a row as SQLite gave it (an object of its values by column name). */
export function columns(r: unknown): Columns {
  if (typeof r !== 'object' || r === null) throw new BadRow('*');
  return new Columns(r as Readonly<Record<string, unknown>>);
}
