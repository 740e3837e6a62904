// A resumed thread's history is read when its first turn needs it (the resume answers without it): the
// turn waits for it, the model gets it whole and first, what it skipped is told, and a failed read fails
// only that turn.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ResponseItem } from '../../src-preload/protocol';
import { startAgent, type AgentHarness } from '../support/agent';
import { createGate, startMockResponsesServer, type MockResponsesServer } from '../support/mock-responses-server';
import { answerTurn } from '../support/sse';
import { makeTempWorkspace, type TempWorkspace } from '../support/workspace';

let server: MockResponsesServer;
let ws: TempWorkspace;
let agent: AgentHarness | undefined;

beforeEach(async () => {
  server = await startMockResponsesServer();
  ws = await makeTempWorkspace({ 'README.md': 'hello\n' });
});

afterEach(async () => {
  await agent?.close();
  agent = undefined;
  await server.close();
  await ws.cleanup();
});

const saved: ResponseItem[] = [
  { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'remember the number 42' }] },
  { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'remembered' }] },
];

function textsOf(n: number): (string | undefined)[] {
  const body = server.requests[n]?.body as { input: { content?: { text?: string }[] }[] };
  return body.input.map((i) => i.content?.[0]?.text);
}

describe('a history read later', () => {
  it('is read once, when the first turn starts, and reaches the model before the new message', async () => {
    const gate = createGate();
    let reads = 0;
    const loadHistory = async () => {
      reads++;
      await gate.released;
      return {
        items: saved,
        warnings: ['thread.jsonl: history line at byte 812 skipped: Unexpected end of JSON input'],
      };
    };
    agent = startAgent({
      baseUrl: server.url,
      cwd: ws.dir,
      initial: { history: [], loadHistory, turns: [], tokenUsage: null, contextRef: null },
    });
    server.enqueueMany([answerTurn('It was 42.'), answerTurn('Still 42.')]);
    expect(reads).toBe(0);

    const warned = agent.next('warning');
    const started = agent.session.startTurn([{ type: 'text', text: 'what was it?' }]);
    // The turn waits for the history: nothing has reached the model yet.
    await new Promise<void>((resolve) => setImmediate(resolve));
    expect(reads).toBe(1);
    expect(server.requests).toHaveLength(0);
    gate.release();
    await started;
    expect((await warned).params).toEqual({
      threadId: agent.session.threadId,
      message: 'thread.jsonl: history line at byte 812 skipped: Unexpected end of JSON input',
    });
    await agent.next('turn/completed');
    const first = textsOf(0);
    expect(first.indexOf('remember the number 42')).toBeGreaterThanOrEqual(0);
    expect(first.indexOf('remembered')).toBeGreaterThan(first.indexOf('remember the number 42'));
    expect(first.at(-1)).toBe('what was it?');

    await agent.runTurn('and now?');
    expect(reads).toBe(1);
    const second = textsOf(1);
    expect(second.filter((t) => t === 'remember the number 42')).toHaveLength(1);
    expect(second.slice(-3)).toEqual(['what was it?', 'It was 42.', 'and now?']);
  });

  it('fails the turn that needed it when it cannot be read, saying why, and is read by the next one', async () => {
    let reads = 0;
    const loadHistory = async () => {
      reads++;
      if (reads === 1) throw new Error('ENOENT: no such file or directory, open thread.jsonl');
      return { items: saved, warnings: [] };
    };
    agent = startAgent({
      baseUrl: server.url,
      cwd: ws.dir,
      initial: { history: [], loadHistory, turns: [], tokenUsage: null, contextRef: null },
    });
    await expect(agent.session.startTurn([{ type: 'text', text: 'first try' }])).rejects.toThrow(
      "could not read this thread's history: ENOENT: no such file or directory, open thread.jsonl",
    );
    expect(server.requests).toHaveLength(0);
    expect(agent.session.turns).toHaveLength(0);

    server.enqueue(answerTurn('It was 42.'));
    await agent.runTurn('second try');
    expect(reads).toBe(2);
    expect(textsOf(0)).toContain('remember the number 42');
    expect(textsOf(0).at(-1)).toBe('second try');
  });
});
