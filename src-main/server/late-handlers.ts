// A handler table whose handlers are made later: a host answers its first requests (`initialize`, the
// first lists) while the rest of it is still being assembled, and any other request waits for it.
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { ClientRequests, type ClientRequestMethod } from '../../src-preload/protocol';
import type { Client, HandlerTable } from './dispatcher';
import { whenQuiet, type QuietWindow } from '../util/quiet';

export interface LateHandlers {
  /** Every method of the protocol, each waiting for the table `make` resolves to. */
  readonly handlers: HandlerTable;
  /** Starts making the table (once); resolves when it is made, rejects with why it could not be. */
  start(): Promise<void>;
  /** Resolves once the table is made (starting it if no one did); rejects when it could not be. */
  readonly ready: Promise<void>;
  /** Resolves once making the table ended, either way. */
  settled(): Promise<void>;
  /**
   * Starts making the table once no request has come for `quietMs`, or `maxMs` from now at the latest (a
   * request that needs it starts it at once): `touch` says a request came. Making it holds the event loop
   * (importing its modules), so it is done between the first answers rather than in front of them.
   */
  startWhenQuiet(quietMs: number, maxMs: number): void;
  touch(): void;
  /** No longer starts making the table when quiet (the host is closing). */
  stopWaiting(): void;
}

export function lateHandlers(make: () => Promise<HandlerTable>): LateHandlers {
  let made: Promise<HandlerTable> | null = null;
  let markReady: (table: Promise<HandlerTable>) => void = () => undefined;
  const table = new Promise<HandlerTable>((resolve) => {
    markReady = resolve;
  });
  const start = (): Promise<HandlerTable> => {
    if (made === null) {
      made = make();
      markReady(made);
    }
    return made;
  };
  type Untyped = (params: unknown, client: Client) => Promise<unknown>;
  const handlers: Partial<Record<ClientRequestMethod, Untyped>> = {};
  for (const method of Object.keys(ClientRequests) as ClientRequestMethod[]) {
    handlers[method] = async (params, client) => {
      const full = (await start()) as Record<ClientRequestMethod, Untyped>;
      return full[method](params, client);
    };
  }
  const ready = table.then(() => undefined);
  // Nobody may await `ready` (a host whose rest fails is told so through its requests and its log).
  ready.catch(() => undefined);
  let quiet: QuietWindow | null = null;
  return {
    startWhenQuiet: (quietMs, maxMs) => {
      quiet?.stop();
      quiet = whenQuiet(quietMs, maxMs, () => {
        if (made === null) start().catch(() => undefined);
      });
    },
    touch: () => {
      if (made === null) quiet?.touch();
      else quiet?.stop();
    },
    stopWaiting: () => quiet?.stop(),
    // Each entry passes its params on to the same method's handler of the table made later.
    handlers: handlers as unknown as HandlerTable,
    start: () => start().then(() => undefined),
    ready,
    settled: () =>
      made === null
        ? Promise.resolve()
        : made.then(
            () => undefined,
            () => undefined,
          ),
  };
}

/**
 * Whether an Undo that a crash cut short may be waiting in `weftHome` (a journal, `*.json`, in the
 * checkpoints' restores folder: `CheckpointService.journalDir`, `readJournals`): a host finishes it before it answers anyone.
 */
export function restoresPending(weftHome: string): boolean {
  const dir = join(weftHome, 'checkpoints', 'restores');
  // eslint-disable-next-line weft/no-sync-fs -- once, at a host's start-up, before it serves anyone
  if (!existsSync(dir)) return false;
  try {
    // eslint-disable-next-line weft/no-sync-fs -- once, at a host's start-up, before it serves anyone
    return readdirSync(dir).some((name) => name.endsWith('.json'));
  } catch {
    return true;
  }
}
