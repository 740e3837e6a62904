import { afterEach, describe, expect, it, vi } from 'vitest';
import type { CommandExecResult, ServerNotification } from '../../../src-preload/protocol';
import {
  DEFAULT_TERMINAL_GRACE_MS,
  KEPT_OUTPUT_BYTES,
  KeptTerminals,
  OutputRoute,
  terminalGraceMs,
  type Running,
} from '../../../src-main/terminal/kept-terminals';

const delta = (
  processId: string,
  bytes: Buffer,
): Extract<ServerNotification, { method: 'command/exec/outputDelta' }> => ({
  method: 'command/exec/outputDelta',
  params: { processId, stream: 'stdout', deltaBase64: bytes.toString('base64'), capReached: false },
});

function running(): Running & { terminated: number } {
  const r = {
    tty: true,
    stdinOpen: true,
    terminated: 0,
    write: () => undefined,
    closeStdin: () => undefined,
    resize: () => undefined,
    terminate: () => {
      r.terminated += 1;
      return Promise.resolve();
    },
  };
  return r;
}

const never = new Promise<CommandExecResult>(() => undefined);

afterEach(() => {
  vi.useRealTimers();
});

describe('the output of a process nobody is connected to', () => {
  it('goes to its connection while it has one, and is kept while it has none, the newest last', () => {
    const seen: ServerNotification[] = [];
    const route = new OutputRoute((n) => seen.push(n));
    route.send(delta('p', Buffer.from('live')));
    expect(seen).toHaveLength(1);
    route.detach();
    route.send(delta('p', Buffer.from('missed 1')));
    route.send(delta('p', Buffer.from('missed 2')));
    expect(seen).toHaveLength(1);
    const next: ServerNotification[] = [];
    route.attach((n) => next.push(n));
    route.send(delta('p', Buffer.from('after')));
    const text = next.map((n) =>
      n.method === 'command/exec/outputDelta' ? Buffer.from(n.params.deltaBase64, 'base64').toString() : '',
    );
    expect(text).toEqual(['missed 1', 'missed 2', 'after']);
  });

  it('keeps the last 256 KiB, dropping the oldest chunks', () => {
    const route = new OutputRoute(null);
    const chunk = 1024;
    for (let i = 0; i < 300; i++) route.send(delta('p', Buffer.alloc(chunk, i % 256)));
    const kept: Buffer[] = [];
    route.attach((n) => {
      if (n.method === 'command/exec/outputDelta') kept.push(Buffer.from(n.params.deltaBase64, 'base64'));
    });
    const bytes = kept.reduce((sum, b) => sum + b.length, 0);
    expect(bytes).toBe(KEPT_OUTPUT_BYTES);
    expect(kept.at(-1)?.[0]).toBe(299 % 256);
    expect(kept[0]?.[0]).toBe((300 - KEPT_OUTPUT_BYTES / chunk) % 256);
  });
});

describe('processes kept for a connection that dropped', () => {
  it('are handed over once, under their key and id', () => {
    const kept = new KeptTerminals(60_000, () => undefined);
    const r = running();
    kept.keep('key-aaaaaaaaaaaaaaaa', 'p', { running: r, route: new OutputRoute(null), result: never });
    expect(kept.take('key-bbbbbbbbbbbbbbbb', 'p')).toBeNull();
    expect(kept.take('key-aaaaaaaaaaaaaaaa', 'q')).toBeNull();
    expect(kept.take('key-aaaaaaaaaaaaaaaa', 'p')?.running).toBe(r);
    expect(kept.take('key-aaaaaaaaaaaaaaaa', 'p')).toBeNull();
    expect(r.terminated).toBe(0);
  });

  it('end when nobody takes them over within the grace period, or when the server closes', async () => {
    vi.useFakeTimers();
    const lines: string[] = [];
    const kept = new KeptTerminals(1000, (line) => lines.push(line));
    const late = running();
    kept.keep('key-aaaaaaaaaaaaaaaa', 'late', { running: late, route: new OutputRoute(null), result: never });
    vi.advanceTimersByTime(999);
    expect(late.terminated).toBe(0);
    vi.advanceTimersByTime(1);
    expect(late.terminated).toBe(1);
    expect(kept.take('key-aaaaaaaaaaaaaaaa', 'late')).toBeNull();
    expect(lines).toEqual(['weft app-server: terminal process late was not taken over within 1000 ms; ending it']);

    const left = running();
    kept.keep('key-aaaaaaaaaaaaaaaa', 'left', { running: left, route: new OutputRoute(null), result: never });
    await kept.dispose();
    expect(left.terminated).toBe(1);
    // Once closed, a process handed over ends at once.
    const after = running();
    kept.keep('key-aaaaaaaaaaaaaaaa', 'after', { running: after, route: new OutputRoute(null), result: never });
    expect(after.terminated).toBe(1);
  });

  it('wait 5 minutes unless WEFT_TERMINAL_GRACE_MS says otherwise', () => {
    expect(DEFAULT_TERMINAL_GRACE_MS).toBe(300_000);
    expect(terminalGraceMs({})).toBe(300_000);
    expect(terminalGraceMs({ WEFT_TERMINAL_GRACE_MS: '2000' })).toBe(2000);
    expect(terminalGraceMs({ WEFT_TERMINAL_GRACE_MS: 'soon' })).toBe(300_000);
    expect(terminalGraceMs({ WEFT_TERMINAL_GRACE_MS: '0' })).toBe(300_000);
  });
});
