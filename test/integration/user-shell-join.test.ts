// A user's command (`thread/shellCommand`, the composer's `!cmd`) that joins a running turn ends within that
// turn, whatever the turn's kind: its `item/started` and `item/completed` come before the turn's
// `turn/completed`, and its rollout lines before the turn's end, through the real `weft app-server`.
// Each command waits on a FIFO the test writes; the model's answer is held by a gate until it has joined.
import { execFileSync } from 'node:child_process';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { makeGitRepo, type GitRepo } from '../support/git-repo';
import { createGate, startMockResponsesServer, type MockResponsesServer } from '../support/mock-responses-server';
import { StdioRpcClient } from '../support/rpc-client';
import { answerTurn, evAssistantMessage, evCompleted, evCreated } from '../support/sse';
import { makeWeftHome, type WeftHome } from '../support/workspace';

let server: MockResponsesServer;
let repo: GitRepo;
let home: WeftHome;
let client: StdioRpcClient;

beforeEach(async () => {
  server = await startMockResponsesServer();
  repo = await makeGitRepo({ 'notes.txt': 'one\n' });
  home = await makeWeftHome(
    `model = "mock-model"\nmodel_provider = "mock"\napproval_policy = "never"\nsandbox_mode = "danger-full-access"\n[model_providers.mock]\nname = "Mock"\nbase_url = "${server.url}"\nenv_key = "MOCK_API_KEY"\nwire_api = "responses"\nrequest_max_retries = 0\n`,
  );
  client = StdioRpcClient.start({ WEFT_HOME: home.dir, MOCK_API_KEY: 'x' }, repo.dir);
  await client.initialize();
});

afterEach(async () => {
  await client.close();
  await server.close();
  await repo.cleanup();
  await home.cleanup();
});

interface Item {
  type: string;
  id: string;
  command?: string;
}

/** A FIFO outside the repository (a review would see it): `cat` on it runs until the test writes it. */
function fifo(name: string): string {
  const path = join(home.dir, name);
  execFileSync('mkfifo', [path]);
  return path;
}

/** Ends a `cat` waiting on `path` (the write waits for it to open the FIFO, if it has not yet). */
async function release(path: string): Promise<void> {
  await writeFile(path, `${path} released\n`);
}

async function startThread(): Promise<{ id: string; path: string }> {
  const { thread } = await client.request<{ thread: { id: string; path: string } }>('thread/start', { cwd: repo.dir });
  return thread;
}

async function turnStarted(threadId: string, from: number): Promise<string> {
  const started = await client.notification('turn/started', (p) => p['threadId'] === threadId, from);
  return (started['turn'] as { id: string }).id;
}

/** Runs `cat path` as the user's command; resolves once it has started (joined the running turn, if any). */
async function shellCommand(threadId: string, path: string): Promise<void> {
  expect(await client.request('thread/shellCommand', { threadId, command: `cat '${path}'` })).toEqual({});
}

function itemCompleted(predicate: (item: Item) => boolean): Promise<Record<string, unknown>> {
  return client.notification('item/completed', (p) => predicate(p['item'] as Item));
}

/**
 * Once answered, a turn that ends without waiting for the user's command has announced its end: its own
 * work ends in the event-loop turn of its last item, its end starts an fsync of the rollout at once and
 * sends `turn/completed` when that is done; a rename fsyncs after it (the rollout's syncs run in order)
 * and does not wait for the turn.
 */
async function barrier(threadId: string): Promise<void> {
  await client.request('thread/name/set', { threadId, name: 'joined commands' });
}

/** The turn's item notifications and its end, in the order they arrived (`command` names a user's command). */
function turnEvents(turnId: string): string[] {
  const events: string[] = [];
  for (const m of client.received) {
    const p = (m.params ?? {}) as Record<string, unknown>;
    if ((m.method === 'item/started' || m.method === 'item/completed') && p['turnId'] === turnId) {
      const item = p['item'] as Item;
      events.push(`${m.method} ${item.command ?? item.type}`);
    } else if (m.method === 'turn/completed' && (p['turn'] as { id: string }).id === turnId) {
      events.push(`turn/completed ${(p['turn'] as { status: string }).status}`);
    }
  }
  return events;
}

/**
 * The turn's event lines in the rollout, in order: `task_started`, items, `task_complete`. Read once a later
 * turn has ended: everything recorded before it is on disk by then.
 */
async function rolloutEvents(path: string, turnId: string): Promise<string[]> {
  const lines = (await readFile(path, 'utf8')).split('\n').filter((l) => l !== '');
  return lines
    .map((l) => JSON.parse(l) as { type: string; payload: Record<string, unknown> })
    .filter((l) => l.type === 'event_msg' && l.payload['turn_id'] === turnId)
    .map((l) => {
      const type = String(l.payload['type']);
      // Codex's form of a command is its argv (`bash -lc <command>`); Weft's own form is the command.
      const item = l.payload['item'] as { type: string; command?: string | string[] } | undefined;
      const command = Array.isArray(item?.command) ? item.command.at(-1) : item?.command;
      return item ? `${type} ${command ?? item.type}` : type;
    });
}

/** The user's command reaches the model with the next turn's first request. */
async function nextRequestSees(threadId: string, command: string): Promise<void> {
  const before = server.requests.length;
  server.enqueue(answerTurn('Seen.'));
  const { turn } = await client.request<{ turn: { id: string } }>('turn/start', {
    threadId,
    input: [{ type: 'text', text: 'what did I run?' }],
  });
  await client.notification('turn/completed', (p) => (p['turn'] as { id: string }).id === turn.id);
  const sent = JSON.stringify((await server.waitForRequest(before + 1)).body);
  expect(sent).toContain('<user_shell_command>');
  expect(sent).toContain(command);
}

describe("a user's command that joins a running turn", () => {
  it('ends within a compact turn', async () => {
    const thread = await startThread();
    const shell = fifo('compact-join');
    const gate = createGate();
    server.enqueue({
      kind: 'sse-slow',
      events: [gate, evCreated(), evAssistantMessage('## Goal\nNothing yet.'), evCompleted()],
    });
    const from = client.received.length;
    expect(await client.request('thread/compact/start', { threadId: thread.id })).toEqual({});
    const turnId = await turnStarted(thread.id, from);
    await server.waitForRequest(1);
    await shellCommand(thread.id, shell);
    gate.release();
    await itemCompleted((i) => i.type === 'contextCompaction');
    await barrier(thread.id);
    await release(shell);
    await client.notification('turn/completed', (p) => (p['turn'] as { id: string }).id === turnId);
    await itemCompleted((i) => i.command === `cat '${shell}'`);

    const cat = `cat '${shell}'`;
    expect(turnEvents(turnId)).toEqual([
      'item/started contextCompaction',
      `item/started ${cat}`,
      'item/completed contextCompaction',
      `item/completed ${cat}`,
      'turn/completed completed',
    ]);
    await nextRequestSees(thread.id, cat);
    expect(await rolloutEvents(thread.path, turnId)).toEqual([
      'task_started',
      'item_completed ContextCompaction',
      `item_completed ${cat}`,
      'weft_item_fields',
      'task_complete',
    ]);
  });

  it('ends within a review turn', async () => {
    await writeFile(repo.path('notes.txt'), 'one\ntwo\n');
    const thread = await startThread();
    const shell = fifo('review-join');
    const gate = createGate();
    server.enqueue({ kind: 'sse-slow', events: [gate, ...answerTurn('Looks right.').events] });
    const { turn } = await client.request<{ turn: { id: string } }>('review/start', {
      threadId: thread.id,
      target: { type: 'uncommittedChanges' },
    });
    await server.waitForRequest(1);
    await shellCommand(thread.id, shell);
    gate.release();
    await itemCompleted((i) => i.type === 'exitedReviewMode');
    await barrier(thread.id);
    await release(shell);
    await client.notification('turn/completed', (p) => (p['turn'] as { id: string }).id === turn.id);
    await itemCompleted((i) => i.command === `cat '${shell}'`);

    const cat = `cat '${shell}'`;
    expect(turnEvents(turn.id)).toEqual([
      'item/started enteredReviewMode',
      'item/completed enteredReviewMode',
      `item/started ${cat}`,
      'item/started exitedReviewMode',
      'item/completed exitedReviewMode',
      `item/completed ${cat}`,
      'turn/completed completed',
    ]);
    await nextRequestSees(thread.id, cat);
    expect(await rolloutEvents(thread.path, turn.id)).toEqual([
      'task_started',
      'weft_item_completed enteredReviewMode',
      'weft_item_completed exitedReviewMode',
      `item_completed ${cat}`,
      'weft_item_fields',
      'task_complete',
    ]);
  });

  it('ends within the turn of another user command', async () => {
    const thread = await startThread();
    const first = fifo('first');
    const joined = fifo('joined');
    const from = client.received.length;
    await shellCommand(thread.id, first);
    const turnId = await turnStarted(thread.id, from);
    await shellCommand(thread.id, joined);
    await release(first);
    await itemCompleted((i) => i.command === `cat '${first}'`);
    await barrier(thread.id);
    await release(joined);
    await client.notification('turn/completed', (p) => (p['turn'] as { id: string }).id === turnId);
    await itemCompleted((i) => i.command === `cat '${joined}'`);

    expect(turnEvents(turnId)).toEqual([
      `item/started cat '${first}'`,
      `item/started cat '${joined}'`,
      `item/completed cat '${first}'`,
      `item/completed cat '${joined}'`,
      'turn/completed completed',
    ]);
    await nextRequestSees(thread.id, `cat '${joined}'`);
    expect(await rolloutEvents(thread.path, turnId)).toEqual([
      'task_started',
      `item_completed cat '${first}'`,
      'weft_item_fields',
      `item_completed cat '${joined}'`,
      'weft_item_fields',
      'task_complete',
    ]);
  });

  it('is stopped by an interrupt while the turn waits for it, and the turn ends interrupted', async () => {
    const thread = await startThread();
    const first = fifo('first');
    const joined = fifo('joined');
    const from = client.received.length;
    await shellCommand(thread.id, first);
    const turnId = await turnStarted(thread.id, from);
    await shellCommand(thread.id, joined);
    await release(first);
    await itemCompleted((i) => i.command === `cat '${first}'`);
    await barrier(thread.id);
    expect(await client.request('turn/interrupt', { threadId: thread.id, turnId })).toEqual({});
    const completed = await client.notification('turn/completed', (p) => (p['turn'] as { id: string }).id === turnId);

    expect(turnEvents(turnId)).toEqual([
      `item/started cat '${first}'`,
      `item/started cat '${joined}'`,
      `item/completed cat '${first}'`,
      `item/completed cat '${joined}'`,
      'turn/completed interrupted',
    ]);
    const stopped = client
      .notifications('item/completed')
      .map((p) => p['item'] as Item & { status: string; weftOutcome: string })
      .find((i) => i.command === `cat '${joined}'`);
    expect(stopped).toMatchObject({ status: 'failed', weftOutcome: 'stopped' });
    expect(completed['turn']).toMatchObject({ id: turnId, status: 'interrupted', error: null });
  });
});
