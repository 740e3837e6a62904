// `@openai/codex-sdk` driving the real `weft exec` (through `codexPathOverride`) against the mock model:
// a script written for Codex works unchanged, and what it reads has the shapes Codex 0.169 prints
// (test/fixtures/codex-exec-0.169, recorded with the same model scripts).
import { chmod, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { Codex, type ThreadEvent } from '@openai/codex-sdk';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { codexExecFixture, eventKinds, shapeOf } from '../support/codex-exec-fixtures';
import { startMockResponsesServer, type MockResponsesServer, type MockStep } from '../support/mock-responses-server';
import {
  evAssistantMessage,
  evCompleted,
  evCreated,
  evFunctionCall,
  evOutputTextDelta,
  evReasoning,
} from '../support/sse';
import { makeTempWorkspace, makeWeftHome, type TempWorkspace, type WeftHome } from '../support/workspace';

const WEFT = resolve(__dirname, '../../bin/weft.js');
// A 1×1 PNG, the image Codex's recording attached.
const TINY_PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAIAAACQd1PeAAAADElEQVR4nGP4z8AAAAMBAQDJ/pLvAAAAAElFTkSuQmCC',
  'base64',
);

let server: MockResponsesServer;
let ws: TempWorkspace;
let home: WeftHome;
let launcher: string;

beforeEach(async () => {
  server = await startMockResponsesServer();
  ws = await makeTempWorkspace({ 'notes.txt': 'hi\n' });
  await writeFile(ws.path('tiny.png'), TINY_PNG);
  // The SDK talks to the built-in openai provider: base URL and key come from the SDK's options.
  home = await makeWeftHome('model = "mock-model"\n');
  launcher = join(home.dir, 'codex');
  await writeFile(launcher, `#!/bin/sh\nexec "${process.execPath}" "${WEFT}" "$@"\n`);
  await chmod(launcher, 0o755);
});

afterEach(async () => {
  await server.close();
  await ws.cleanup();
  await home.cleanup();
});

function codex(): Codex {
  return new Codex({
    codexPathOverride: launcher,
    baseUrl: server.url,
    apiKey: 'sk-from-sdk',
    env: { PATH: process.env['PATH'] ?? '/usr/bin:/bin', HOME: home.dir, SHELL: '/bin/bash', WEFT_HOME: home.dir },
  });
}

const threadOptions = () => ({
  workingDirectory: ws.dir,
  skipGitRepoCheck: true,
  sandboxMode: 'workspace-write' as const,
});

function answer(
  text: string,
  responseId = 'resp_1',
  usage = { input_tokens: 100, cached_tokens: 20, output_tokens: 10, reasoning_tokens: 3 },
): MockStep {
  return {
    kind: 'sse',
    events: [
      evCreated(responseId),
      evReasoning(['Thinking about it']),
      evOutputTextDelta(text),
      evAssistantMessage(text),
      evCompleted(responseId, usage),
    ],
  };
}

/** The model script Codex's `tools` recording ran: a command, a patch, a failing command, an answer. */
function toolsScript(): MockStep[] {
  const patch =
    "apply_patch <<'EOF'\n*** Begin Patch\n*** Add File: new.txt\n+fresh\n*** Update File: notes.txt\n@@\n-hi\n+hello\n*** End Patch\nEOF";
  return [
    {
      kind: 'sse',
      events: [
        evCreated('r1'),
        evFunctionCall('c1', 'exec_command', { cmd: 'cat notes.txt' }),
        evCompleted('r1', { input_tokens: 50, output_tokens: 5 }),
      ],
    },
    {
      kind: 'sse',
      events: [
        evCreated('r2'),
        evFunctionCall('c2', 'exec_command', { cmd: patch }),
        evCompleted('r2', { input_tokens: 60, cached_tokens: 10, output_tokens: 6, reasoning_tokens: 1 }),
      ],
    },
    {
      kind: 'sse',
      events: [
        evCreated('r3'),
        evFunctionCall('c3', 'exec_command', { cmd: 'false' }),
        evCompleted('r3', { input_tokens: 100, cached_tokens: 20, output_tokens: 10, reasoning_tokens: 3 }),
      ],
    },
    {
      kind: 'sse',
      events: [
        evCreated('r4'),
        evAssistantMessage('Done.'),
        evCompleted('r4', { input_tokens: 70, cached_tokens: 30, output_tokens: 7, reasoning_tokens: 2 }),
      ],
    },
  ];
}

async function collect(events: AsyncGenerator<ThreadEvent>): Promise<ThreadEvent[]> {
  const all: ThreadEvent[] = [];
  for await (const event of events) all.push(event);
  return all;
}

describe('@openai/codex-sdk against weft exec', () => {
  it('runStreamed() yields the events Codex prints, in the same order and shapes', async () => {
    server.enqueueMany(toolsScript());
    const thread = codex().startThread(threadOptions());
    const { events } = await thread.runStreamed('look at notes');
    const ours = await collect(events);
    const codexEvents = codexExecFixture('tools');

    expect(eventKinds(ours)).toEqual(eventKinds(codexEvents));
    expect(ours.map(shapeOf)).toEqual(codexEvents.map(shapeOf));
    expect(ours[0]).toEqual({ type: 'thread.started', thread_id: thread.id });
    expect(thread.id).toMatch(/^[0-9a-f-]{36}$/);
    // The same usage Codex reported for the same script: the thread's running total.
    expect(ours.at(-1)).toEqual(codexEvents.at(-1));
    const completed = ours.flatMap((e) => (e.type === 'item.completed' ? [e.item] : []));
    expect(completed).toEqual([
      {
        id: 'item_0',
        type: 'command_execution',
        command: 'cat notes.txt',
        aggregated_output: 'hi\n',
        exit_code: 0,
        status: 'completed',
      },
      {
        id: 'item_1',
        type: 'file_change',
        changes: [
          { path: ws.path('new.txt'), kind: 'add' },
          { path: ws.path('notes.txt'), kind: 'update' },
        ],
        status: 'completed',
      },
      {
        id: 'item_2',
        type: 'command_execution',
        command: 'false',
        aggregated_output: '',
        exit_code: 1,
        status: 'failed',
      },
      { id: 'item_3', type: 'agent_message', text: 'Done.' },
    ]);
    expect(await ws.read('notes.txt')).toBe('hello\n');
    expect(server.requests[0]?.headers['authorization']).toBe('Bearer sk-from-sdk');
  });

  it('run() returns the final answer, the items and the usage; resumeThread() continues the same thread', async () => {
    server.enqueueMany([answer('Hello there.'), answer('Hello there.', 'resp_2')]);
    const sdk = codex();
    const first = sdk.startThread(threadOptions());
    const turn = await first.run('say hello');
    const codexFirst = codexExecFixture('answer');
    expect(turn.finalResponse).toBe('Hello there.');
    expect(turn.items.map(shapeOf)).toEqual(
      codexFirst.filter((e) => e.type === 'item.completed').map((e) => shapeOf(e['item'])),
    );
    expect(turn.items).toEqual([
      { id: 'item_0', type: 'reasoning', text: 'Thinking about it' },
      { id: 'item_1', type: 'agent_message', text: 'Hello there.' },
    ]);
    expect(turn.usage).toEqual({
      input_tokens: 100,
      cached_input_tokens: 20,
      cache_write_input_tokens: 0,
      output_tokens: 10,
      reasoning_output_tokens: 3,
    });

    const id = first.id;
    expect(id).not.toBeNull();
    const resumed = sdk.resumeThread(id ?? '', threadOptions());
    const { events } = await resumed.runStreamed('again');
    const again = await collect(events);
    const codexResume = codexExecFixture('resume');
    expect(eventKinds(again)).toEqual(eventKinds(codexResume));
    expect(again[0]).toEqual({ type: 'thread.started', thread_id: id });
    // As Codex: the usage of a resumed thread keeps counting from where it was.
    expect(again.at(-1)).toEqual(codexResume.at(-1));
    const history = JSON.stringify(server.requests[1]?.body);
    expect(history).toContain('say hello');
    expect(history).toContain('Hello there.');
    expect(history).toContain('again');
  });

  it('sends outputSchema as a strict JSON-schema response format and local images with the prompt', async () => {
    server.enqueue({ kind: 'sse', events: [evCreated(), evAssistantMessage('{"answer":"42"}'), evCompleted()] });
    const recorded = (await import('../fixtures/codex-exec-0.169/schema-image.request.json')).default;
    const schema = recorded.text.format.schema;
    const turn = await codex()
      .startThread(threadOptions())
      .run(
        [
          { type: 'text', text: 'answer in json' },
          { type: 'local_image', path: ws.path('tiny.png') },
        ],
        { outputSchema: schema },
      );
    expect(JSON.parse(turn.finalResponse)).toEqual({ answer: '42' });
    const body = server.requests[0]?.body as {
      text: unknown;
      input: { role?: string; content?: { type: string; image_url?: string; text?: string }[] }[];
    };
    expect(body.text).toEqual(recorded.text);
    const user = body.input.at(-1)?.content ?? [];
    const image = recorded.lastUserMessage.content.find((c) => c.type === 'input_image');
    expect(user.find((c) => c.type === 'input_image')?.image_url).toBe(image?.image_url);
    expect(user.at(-1)).toEqual({ type: 'input_text', text: 'answer in json' });
  });

  it('reports a failed turn as Codex does: error, then turn.failed; run() rejects with the message', async () => {
    const refusal: MockStep = {
      kind: 'http-error',
      status: 400,
      body: { error: { message: 'bad request: nope', type: 'invalid_request_error', code: null } },
    };
    server.enqueue(refusal);
    const { events } = await codex().startThread(threadOptions()).runStreamed('hi');
    const ours: ThreadEvent[] = [];
    await expect(async () => {
      for await (const event of events) ours.push(event);
    }).rejects.toThrow(/Codex Exec exited with code 1/);
    const codexEvents = codexExecFixture('http-400');
    expect(eventKinds(ours)).toEqual(eventKinds(codexEvents));
    expect(ours.map(shapeOf)).toEqual(codexEvents.map(shapeOf));
    expect(ours.at(-1)).toMatchObject({
      type: 'turn.failed',
      error: { message: expect.stringContaining('bad request: nope') },
    });

    server.enqueue(refusal);
    await expect(codex().startThread(threadOptions()).run('hi')).rejects.toThrow(/bad request: nope/);
  });
});
