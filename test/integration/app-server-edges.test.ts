// Edges of the app server that a client must be able to rely on: bad input is -32602 (never an internal
// error), an oversized request still gets an answer carrying its id, and damage found in a rollout is
// told to the client, not only to the server's log.
import { readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { createAppHost } from '../../src-main/server/app-host';
import { runStdioServer } from '../../src-main/server/stdio';
import { ThreadStore } from '../../src-main/store';
import { uuidv7 } from '../../src-main/util/ids';
import { hostPerTest } from '../support/in-process-host';
import { waitFor } from '../support/wait';
import { makeTempWorkspace } from '../support/workspace';
import { ScriptedSession, meta } from '../unit/store/helpers';

const fixture = hostPerTest({ 'notes.txt': 'one\n' }, 'model = "mock-model"\n');

/** A saved thread of two turns whose second user message line is damaged on disk. */
async function damagedThread(): Promise<{ id: string; path: string }> {
  const store = ThreadStore.open(fixture.home.dir, { onWarning: () => undefined });
  const id = uuidv7();
  const { recorder, path } = store.createThread(meta(id, fixture.ws.dir));
  const session = new ScriptedSession(id, recorder);
  await session.turn([{ type: 'text', text: 'first question' }], 'completed');
  await session.turn([{ type: 'text', text: 'second question' }], 'completed');
  await recorder.close();
  await store.close();
  const lines = readFileSync(path, 'utf8').split('\n');
  const target = lines.findIndex(
    (l) => l.includes('"item_completed"') && l.includes('"UserMessage"') && l.includes('second question'),
  );
  expect(target).toBeGreaterThan(0);
  lines[target] = `${(lines[target] ?? '').slice(0, 30)}\u0000torn`;
  writeFileSync(path, lines.join('\n'));
  return { id, path };
}

describe('app server edges', () => {
  it('answers an invalid list cursor with -32602, not an internal error', async () => {
    const { client } = await fixture.start();
    for (const cursor of ['\u0000', 'not-a-cursor', Buffer.from('{"k":"created_at"}').toString('base64url')]) {
      const reply = await client.call('thread/list', { cursor });
      expect(reply.error?.code, `cursor ${JSON.stringify(cursor)}`).toBe(-32602);
      expect(reply.error?.message).toContain('is not a thread list cursor; list again without a cursor');
    }
    const sorted = await client.call('thread/list', { sortKey: 'updated_at' });
    expect(sorted.error).toBeUndefined();
    const { id } = await damagedThread();
    const turns = await client.call('thread/turns/list', { threadId: id, cursor: '\u0000' });
    expect(turns.error?.code).toBe(-32602);
    expect(turns.error?.message).toContain('is not a turns cursor of this thread');
  });

  it('answers changes to an unknown thread with -32602, as a read, and logs no stack trace', async () => {
    const { client, logs } = await fixture.start();
    const threadId = uuidv7();
    const unknown = {
      code: -32602,
      message: expect.stringContaining(`no thread ${threadId} in `) as unknown,
    };
    for (const [method, params] of [
      ['thread/read', { threadId }],
      ['thread/name/set', { threadId, name: 'x' }],
      ['thread/rollback', { threadId, numTurns: 1 }],
      ['thread/revert', { threadId, beforeTurnId: 'turn-1' }],
      ['thread/archive', { threadId }],
      ['thread/unarchive', { threadId }],
      ['thread/resume', { threadId }],
      ['thread/fork', { threadId }],
    ] as const) {
      const reply = await client.call(method, params);
      expect({ method, error: reply.error }).toEqual({ method, error: unknown });
    }
    expect(logs.filter((line) => line.includes(' failed: '))).toEqual([]);
  });

  it('tells the client about corrupt rollout lines with warning notifications', async () => {
    const { id, path } = await damagedThread();
    const { client } = await fixture.start();

    const read = await client.call('thread/read', { threadId: id, includeTurns: true });
    expect(read.error).toBeUndefined();
    const afterRead = client.notifications('warning');
    expect(afterRead).toHaveLength(1);
    expect(afterRead[0]?.params).toEqual({ threadId: id, message: expect.stringContaining(basename(path)) });
    expect(afterRead[0]?.params['message']).toMatch(/line \d+/);

    const resumed = await client.call('thread/resume', { threadId: id });
    expect(resumed.error).toBeUndefined();
    expect(client.notifications('warning')).toHaveLength(2);
    expect(client.notifications('warning')[1]?.params).toEqual(afterRead[0]?.params);

    const listed = await client.call('thread/turns/list', { threadId: id });
    expect(listed.error).toBeUndefined();
    expect(client.notifications('warning')).toHaveLength(3);
  });

  it('answers a request over the line limit with an error carrying its id, then serves the next one', async () => {
    const host = await createAppHost({
      weftHome: fixture.home.dir,
      cwd: fixture.ws.dir,
      env: { WEFT_HOME: fixture.home.dir },
      log: () => undefined,
    });
    const stdin = new PassThrough();
    const stdout = new PassThrough();
    const stderr = new PassThrough();
    stderr.resume();
    const replies: { id: unknown; error?: { code: number; message: string }; result?: unknown }[] = [];
    const listeners = new Set<(count: number) => void>();
    let partial = '';
    stdout.setEncoding('utf8');
    stdout.on('data', (chunk: string) => {
      const lines = (partial + chunk).split('\n');
      partial = lines.pop() ?? '';
      for (const line of lines) replies.push(JSON.parse(line) as (typeof replies)[number]);
      for (const l of [...listeners]) l(replies.length);
    });
    const subscribe = (l: (count: number) => void) => {
      listeners.add(l);
      return () => listeners.delete(l);
    };
    const done = runStdioServer(host.host, { stdin, stdout, stderr }, { maxLineBytes: 4096 });
    stdin.write('{"id":1,"method":"initialize","params":{"clientInfo":{"name":"t","version":"0"}}}\n');
    const big = `{"method":"thread/list","params":{"searchTerm":"${'x'.repeat(100_000)}"},"id":"big-1"}`;
    stdin.write(`${big}\n`);
    stdin.write('{"id":2,"method":"thread/list","params":{}}\n');
    await waitFor(subscribe, () => replies.some((r) => r.id === 2), { label: 'reply to id 2' });
    expect(replies.map((r) => r.id)).toEqual([1, 'big-1', 2]);
    expect(replies[1]).toEqual({
      id: 'big-1',
      error: { code: -32600, message: `message too large: ${big.length} bytes exceeds the 4096 bytes limit` },
    });
    expect(replies[2]?.result).toEqual({ data: [], nextCursor: null });
    stdin.end();
    await done;
    await host.close();
  });

  it("reads files only inside the project, the threads' folders and WEFT_HOME, through no symlink", async () => {
    const other = await makeTempWorkspace({ 'elsewhere.txt': 'other project\n' });
    const outside = await makeTempWorkspace({ 'secret.txt': 'not for the page\n' });
    try {
      symlinkSync(outside.path('secret.txt'), fixture.ws.path('link-to-secret'));
      symlinkSync(outside.dir, fixture.ws.path('link-to-dir'));
      const { client } = await fixture.start();
      const read = async (path: string) => {
        const reply = await client.call('fs/readFile', { path });
        return reply.error
          ? { error: reply.error.code, message: reply.error.message }
          : Buffer.from(String((reply.result as { dataBase64: string }).dataBase64), 'base64').toString('utf8');
      };
      expect(await read(fixture.ws.path('notes.txt'))).toBe('one\n');
      expect(await read(join(fixture.home.dir, 'config.toml'))).toBe('model = "mock-model"\n');
      const refused = {
        error: -32602,
        message: expect.stringContaining('is outside the folders this server reads') as unknown,
      };
      for (const path of [
        outside.path('secret.txt'),
        fixture.ws.path('link-to-secret'),
        join(fixture.ws.path('link-to-dir'), 'secret.txt'),
        join(fixture.ws.dir, '..', basename(outside.dir), 'secret.txt'),
        '/etc/hostname',
        other.path('elsewhere.txt'),
      ]) {
        expect(await read(path), path).toEqual(refused);
      }
      expect(await read(fixture.ws.path('missing.txt'))).toEqual({
        error: -32602,
        message: `${fixture.ws.path('missing.txt')} is not a readable file`,
      });
      // A thread opened on another folder makes that folder readable.
      const started = await client.call('thread/start', { cwd: other.dir });
      expect(started.error).toBeUndefined();
      expect(await read(other.path('elsewhere.txt'))).toBe('other project\n');
    } finally {
      await other.cleanup();
      await outside.cleanup();
    }
  });
});
