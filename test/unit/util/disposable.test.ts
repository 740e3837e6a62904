// DisposableStore: releases what it holds newest first, once, with every failure reported together, and
// releases at once whatever is added after it was disposed.
import { describe, expect, it } from 'vitest';
import { DisposableStore, DisposeError, toDisposable } from '../../../src-main/util/disposable';

/** A resource that records its release in `log`, after a turn of the event loop when `async`. */
function resource(log: string[], name: string, options: { async?: boolean; fail?: string } = {}) {
  return {
    dispose: async () => {
      if (options.async === true) await new Promise<void>((resolve) => setImmediate(resolve));
      log.push(name);
      if (options.fail !== undefined) throw new Error(options.fail);
    },
  };
}

describe('DisposableStore', () => {
  it('releases in the reverse of the order of adding, each after the one before has finished', async () => {
    const log: string[] = [];
    const store = new DisposableStore();
    store.add(resource(log, 'recorder', { async: true }));
    store.add({ dispose: () => void log.push('commands') });
    store.add(resource(log, 'mcp', { async: true }));
    expect(store.isDisposed).toBe(false);
    await store.dispose();
    expect(log).toEqual(['mcp', 'commands', 'recorder']);
    expect(store.isDisposed).toBe(true);
  });

  it('runs once: every call gives the same promise and nothing is released twice', async () => {
    const log: string[] = [];
    const store = new DisposableStore();
    store.add(resource(log, 'a', { async: true }));
    const first = store.dispose();
    const second = store.dispose();
    expect(second).toBe(first);
    await Promise.all([first, second, store.dispose()]);
    expect(log).toEqual(['a']);
  });

  it('releases everything even when some fail, and reports every failure together with what it was', async () => {
    const log: string[] = [];
    const store = new DisposableStore();
    store.add(resource(log, 'recorder'), 'the rollout');
    store.add(
      {
        dispose: () => {
          log.push('commands');
          throw new Error('kill: operation not permitted');
        },
      },
      'the running commands',
    );
    store.add(resource(log, 'mcp', { async: true, fail: 'the server did not exit' }), 'the MCP server docs');
    const error = await store.dispose().then(
      () => null,
      (e: unknown) => e,
    );
    expect(log).toEqual(['mcp', 'commands', 'recorder']);
    expect(error).toBeInstanceOf(DisposeError);
    expect(error).toMatchObject({
      message:
        '2 of 3 resources could not be released: the MCP server docs: the server did not exit; the running commands: kill: operation not permitted',
      failures: [
        { what: 'the MCP server docs', error: new Error('the server did not exit') },
        { what: 'the running commands', error: new Error('kill: operation not permitted') },
      ],
    });
    // Asked again, it gives the same answer and releases nothing more.
    await expect(store.dispose()).rejects.toBe(error);
    expect(log).toEqual(['mcp', 'commands', 'recorder']);
  });

  it('releases at once what is added after it was disposed, and reports a failure of that', async () => {
    const log: string[] = [];
    const late: unknown[] = [];
    const reported = new Promise<void>((resolve) => {
      const store = new DisposableStore((e) => {
        late.push(e);
        resolve();
      });
      void store.dispose().then(() => {
        const added = resource(log, 'late', { fail: 'busy' });
        expect(store.add(added, 'a PTY')).toBe(added);
      });
    });
    await reported;
    expect(log).toEqual(['late']);
    expect(late).toEqual([new DisposeError([{ what: 'a PTY', error: new Error('busy') }], 1)]);
    expect(late[0]).toMatchObject({ message: '1 of 1 resources could not be released: a PTY: busy' });
  });

  it('lets go of a resource without releasing it when asked (its owner changed)', async () => {
    const log: string[] = [];
    const store = new DisposableStore();
    const kept = store.add(resource(log, 'moved'));
    store.add(resource(log, 'stays'));
    expect(store.delete(kept)).toBe(true);
    expect(store.delete(kept)).toBe(false);
    await store.dispose();
    expect(log).toEqual(['stays']);
  });

  it('holds stores inside stores', async () => {
    const log: string[] = [];
    const outer = new DisposableStore();
    const inner = outer.add(new DisposableStore());
    inner.add(resource(log, 'inner 1'));
    inner.add(resource(log, 'inner 2'));
    outer.add(resource(log, 'outer'));
    await outer.dispose();
    expect(log).toEqual(['outer', 'inner 2', 'inner 1']);
    expect(inner.isDisposed).toBe(true);
  });
});

describe('toDisposable', () => {
  it('runs its release once however often it is disposed', async () => {
    let runs = 0;
    const d = toDisposable(() => {
      runs++;
    });
    await Promise.all([d.dispose(), d.dispose()]);
    await d.dispose();
    expect(runs).toBe(1);
  });
});
