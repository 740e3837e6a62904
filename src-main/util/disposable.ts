// Lifetimes: whatever holds an OS resource (a child process, a PTY, a socket, a watcher, a file handle)
// is a Disposable, and whatever owns several puts them in a DisposableStore, which releases them all at
// once, newest first, when its owner goes (a thread unloading, the host closing). Modelled on VS Code's
// IDisposable / DisposableStore, with asynchronous disposal: most of these resources end asynchronously.

/** Something that holds a resource until `dispose` (called at most once by a store; safe to call again). */
export interface Disposable {
  dispose(): void | Promise<void>;
}

/** A Disposable running `release` once, however often it is disposed. */
export function toDisposable(release: () => void | Promise<void>): Disposable {
  let done: Promise<void> | null = null;
  return {
    dispose: () => (done ??= Promise.resolve().then(release)),
  };
}

/** Several resources that could not be released: each one's error, with what it was. */
export class DisposeError extends AggregateError {
  override readonly name = 'DisposeError';

  constructor(
    readonly failures: readonly { what: string; error: unknown }[],
    total: number,
  ) {
    super(
      failures.map((f) => f.error),
      `${failures.length} of ${total} resources could not be released: ${failures
        .map((f) => `${f.what}: ${f.error instanceof Error ? f.error.message : String(f.error)}`)
        .join('; ')}`,
    );
  }
}

interface Entry {
  item: Disposable;
  what: string;
}

/**
 * Resources released together. `dispose` releases them in the reverse of the order they were added (what
 * was made last, and may use what came before, goes first), one after the other, and reports every
 * failure at once in a DisposeError; it runs once, and every call returns the same promise. A resource
 * added after that is released at once (it would otherwise outlive its owner): its failure is passed to
 * `onLateError` (default: a process warning), since no caller waits for it.
 */
export class DisposableStore implements Disposable {
  private readonly entries: Entry[] = [];
  private done: Promise<void> | null = null;

  constructor(private readonly onLateError: (error: unknown) => void = (e) => process.emitWarning(describe(e))) {}

  /** True once `dispose` was called. */
  get isDisposed(): boolean {
    return this.done !== null;
  }

  /** Keeps `item` until the store is disposed; `what` names it in errors ("the MCP server docs"). */
  add<T extends Disposable>(item: T, what = 'a resource'): T {
    if (this.done === null) {
      this.entries.push({ item, what });
      return item;
    }
    release(item).then(
      (error) => {
        if (error !== undefined) this.onLateError(new DisposeError([{ what, error: error.cause }], 1));
      },
      (error: unknown) => this.onLateError(error),
    );
    return item;
  }

  /** Lets go of `item` without disposing it (its owner changed); false when it was not in the store. */
  delete(item: Disposable): boolean {
    const index = this.entries.findIndex((e) => e.item === item);
    if (index < 0) return false;
    this.entries.splice(index, 1);
    return true;
  }

  dispose(): Promise<void> {
    return (this.done ??= this.run());
  }

  private async run(): Promise<void> {
    const entries = this.entries.splice(0).reverse();
    const failures: { what: string; error: unknown }[] = [];
    for (const { item, what } of entries) {
      const failed = await release(item);
      if (failed !== undefined) failures.push({ what, error: failed.cause });
    }
    if (failures.length > 0) throw new DisposeError(failures, entries.length);
  }
}

/** Disposes `item`; resolves to its failure (wrapped, as it may be any value), or undefined. */
async function release(item: Disposable): Promise<{ cause: unknown } | undefined> {
  try {
    await item.dispose();
    return undefined;
  } catch (cause) {
    return { cause };
  }
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
