// "Try 3 ways" over the real `weft app-server`: three worktree threads of one project started at once with
// the same message and one group id, running at the same time in the real sandbox, each writing only in
// its own worktree; the group is kept with the threads (list, read), and
// `weft/worktree/compare` shows each one's changes, its test runs with their exit codes and its last
// message; the chosen one is then handed off to the local checkout.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { RecordedRequest, ScriptStep } from '../support/mock-responses-server';
import { evAssistantMessage, evCompleted, evCreated, evFunctionCall } from '../support/sse';
import { startWorktreeApp, type StartedThread, type WorktreeApp } from '../support/worktree-app';

let app: WorktreeApp | undefined;

afterEach(async () => {
  await app?.close();
  app = undefined;
});

const FILES = {
  'README.md': '# Demo\n',
  // The project's tests pass while made.txt has fewer than 3 lines.
  Makefile: 'test:\n\t@test $$(wc -l < made.txt) -lt 3\n',
};

/** How many tool outputs the request carries: 0 → write, 1 → run the tests, 2 → answer. */
function outputsIn(request: RecordedRequest): number {
  const input = (request.body as { input?: { type?: string }[] } | undefined)?.input ?? [];
  return input.filter((item) => item.type === 'function_call_output').length;
}

/**
 * The model of every way: the n-th way to ask writes n lines (so the third fails its tests), runs
 * `make test`, then says which way it was. The ways are told apart by the thread (the prompt cache key).
 */
function scriptedWays(): ScriptStep[] {
  const wayOf = new Map<string, number>();
  const step = (request: RecordedRequest) => {
    const thread = String((request.body as { prompt_cache_key?: string } | undefined)?.prompt_cache_key);
    if (!wayOf.has(thread)) wayOf.set(thread, wayOf.size + 1);
    const way = wayOf.get(thread) ?? 0;
    const done = outputsIn(request);
    return {
      kind: 'sse' as const,
      events:
        done === 0
          ? [
              evCreated(),
              evFunctionCall(`w${way}`, 'exec_command', { cmd: `pwd > where.txt && seq ${way} > made.txt` }),
              evCompleted(),
            ]
          : done === 1
            ? [evCreated(), evFunctionCall(`t${way}`, 'exec_command', { cmd: 'make test' }), evCompleted()]
            : [evCreated(), evAssistantMessage(`Way ${way} wrote ${way} line(s).`), evCompleted()],
    };
  };
  return Array.from({ length: 9 }, () => step);
}

describe('try 3 ways', () => {
  it('starts three grouped worktree threads with one message; each writes only in its own worktree; compare and hand off', async () => {
    app = await startWorktreeApp(FILES);
    const a = app;
    const { repo } = a;
    const statusBefore = await repo.git('status', '--porcelain', '--untracked-files=all');
    a.server.enqueueMany(scriptedWays());
    const started = await Promise.all([1, 2, 3].map(() => a.startWorktree({ weftGroupId: 'try-3' })));
    expect(started.map((s) => s.thread.weftGroupId)).toEqual(['try-3', 'try-3', 'try-3']);
    const paths = started.map((s) => s.worktree.path);
    expect(new Set(paths).size).toBe(3);
    // The same message to each, at once; all three run side by side.
    const ends = await Promise.all(started.map((s) => a.turn(s.thread.id, 'Make made.txt and run the tests')));
    expect(ends.map((e) => (e['turn'] as { status: string }).status)).toEqual(['completed', 'completed', 'completed']);

    const wayOf = new Map<string, number>();
    for (const s of started) {
      const where = (await readFile(join(s.worktree.path, 'where.txt'), 'utf8')).trim();
      // Each thread's command ran in its own worktree, and wrote there only.
      expect(where).toBe(s.worktree.path);
      const lines = (await readFile(join(s.worktree.path, 'made.txt'), 'utf8')).split('\n').filter(Boolean);
      wayOf.set(s.thread.id, lines.length);
      expect(a.commands(s.thread.id).map((c) => c.cwd)).toEqual([s.worktree.path, s.worktree.path]);
    }
    expect([...wayOf.values()].sort()).toEqual([1, 2, 3]);
    expect(await repo.git('status', '--porcelain', '--untracked-files=all')).toBe(statusBefore);

    // The group is kept with the threads.
    const listed = await a.ok<{ data: StartedThread['thread'][] }>('thread/list', { cwd: repo.dir });
    expect(listed.data.map((t) => [t.id, t.weftGroupId]).sort()).toEqual(
      started.map((s) => [s.thread.id, 'try-3']).sort(),
    );
    const read = await a.ok<{ thread: StartedThread['thread'] }>('thread/read', { threadId: started[0]?.thread.id });
    expect(read.thread.weftGroupId).toBe('try-3');

    // Side by side: what each changed, its test run and how it ended, its last message.
    const compared = await a.ok<{ threads: Record<string, unknown>[] }>('weft/worktree/compare', {
      threadIds: started.map((s) => s.thread.id),
    });
    expect(compared.threads).toEqual(
      started.map((s) => {
        const way = wayOf.get(s.thread.id) ?? 0;
        return {
          threadId: s.thread.id,
          branch: s.worktree.branch,
          worktree: s.worktree.path,
          turnStatus: 'completed',
          files: [
            { path: 'made.txt', insertions: way, deletions: 0 },
            { path: 'where.txt', insertions: 1, deletions: 0 },
          ],
          insertions: way + 1,
          deletions: 0,
          tests: [{ command: 'make test', status: way === 3 ? 'failed' : 'completed', exitCode: way === 3 ? 2 : 0 }],
          finalMessage: `Way ${way} wrote ${way} line(s).`,
          problem: null,
        };
      }),
    );

    // The chosen one (way 2) goes to the local checkout; the others stay where they are.
    const chosen = started.find((s) => wayOf.get(s.thread.id) === 2);
    if (chosen === undefined) throw new Error('no second way');
    const preview = await a.ok<{ files: { path: string; status: string }[]; fingerprint: string }>(
      'weft/worktree/handoff/preview',
      { threadId: chosen.thread.id, direction: 'toLocal' },
    );
    expect(preview.files.map((f) => [f.path, f.status])).toEqual([
      ['made.txt', 'apply'],
      ['where.txt', 'apply'],
    ]);
    await a.ok('weft/worktree/handoff', {
      threadId: chosen.thread.id,
      direction: 'toLocal',
      fingerprint: preview.fingerprint,
    });
    expect(await readFile(repo.path('made.txt'), 'utf8')).toBe('1\n2\n');
    expect((await readFile(repo.path('where.txt'), 'utf8')).trim()).toBe(chosen.worktree.path);
  });

  it('starts many worktree threads of one repository at once, none failing for another one being made', async () => {
    app = await startWorktreeApp(FILES);
    const a = app;
    const errors: unknown[] = [];
    const paths = new Set<string>();
    for (let round = 0; round < 8; round++) {
      const replies = await Promise.all(
        [1, 2, 3, 4].map(() => a.client.call('thread/start', { cwd: a.repo.dir, weftWorktree: true })),
      );
      for (const reply of replies) {
        if (reply.error !== undefined) errors.push(reply.error);
        else paths.add((reply.result as StartedThread).thread.weftWorktree?.path ?? '');
      }
    }
    expect(errors).toEqual([]);
    expect(paths.size).toBe(32);
  });
});
