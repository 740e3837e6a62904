import { describe, expect, it } from 'vitest';
import type { ServerNotification } from '../../../src-preload/protocol';
import { CodexExecEvents } from '../../../src-main/cli/exec-thread-events';
import { parseExecArgs } from '../../../src-main/cli/exec-args';

const T = { threadId: 't1', turnId: 'u1' };
const turn = (
  status: 'inProgress' | 'completed' | 'interrupted' | 'failed',
  error: { message: string } | null = null,
) => ({ id: 'u1', items: [], status, error, startedAt: 1, completedAt: null, durationMs: null });

describe('CodexExecEvents', () => {
  it('turns a plan into one todo_list item, warnings and retries into error items, an interrupt into turn.failed', () => {
    const events = new CodexExecEvents();
    const plan = (done: boolean): ServerNotification => ({
      method: 'turn/plan/updated',
      params: {
        ...T,
        explanation: null,
        plan: [
          { step: 'read', status: done ? 'completed' : 'inProgress' },
          { step: 'fix', status: 'pending' },
        ],
      },
    });
    const out = [
      { method: 'turn/started', params: { threadId: 't1', turn: turn('inProgress') } },
      plan(false),
      plan(true),
      { method: 'warning', params: { threadId: 't1', message: 'careful' } },
      {
        method: 'error',
        params: {
          ...T,
          willRetry: true,
          error: { message: 'Reconnecting... 1/5', additionalDetails: 'stream dropped' },
        },
      },
      { method: 'item/started', params: { ...T, item: { type: 'agentMessage', id: 'm', text: '', phase: null } } },
      {
        method: 'item/completed',
        params: {
          ...T,
          item: {
            type: 'commandExecution',
            id: 'c',
            command: 'rm -rf /',
            cwd: '/',
            processId: null,
            status: 'declined',
            commandActions: [],
            aggregatedOutput: null,
            exitCode: null,
            durationMs: null,
          },
        },
      },
      {
        method: 'item/completed',
        params: {
          ...T,
          item: {
            type: 'mcpToolCall',
            id: 'x',
            server: 's',
            tool: 't',
            status: 'completed',
            arguments: { a: 1 },
            result: { content: [{ type: 'text', text: 'ok' }] },
            error: null,
            durationMs: 3,
          },
        },
      },
      { method: 'turn/completed', params: { threadId: 't1', turn: turn('interrupted') } },
    ].flatMap((n) => events.handle(n as ServerNotification));
    const todo = (items: { text: string; completed: boolean }[]) => ({ id: 'item_0', type: 'todo_list', items });
    expect(out).toEqual([
      { type: 'turn.started' },
      {
        type: 'item.started',
        item: todo([
          { text: 'read', completed: false },
          { text: 'fix', completed: false },
        ]),
      },
      {
        type: 'item.updated',
        item: todo([
          { text: 'read', completed: true },
          { text: 'fix', completed: false },
        ]),
      },
      { type: 'item.completed', item: { id: 'item_1', type: 'error', message: 'careful' } },
      {
        type: 'item.completed',
        item: { id: 'item_2', type: 'error', message: 'Reconnecting... 1/5 (stream dropped)' },
      },
      {
        type: 'item.completed',
        item: {
          id: 'item_3',
          type: 'command_execution',
          command: 'rm -rf /',
          aggregated_output: '',
          exit_code: null,
          status: 'failed',
        },
      },
      {
        type: 'item.completed',
        item: {
          id: 'item_4',
          type: 'mcp_tool_call',
          server: 's',
          tool: 't',
          arguments: { a: 1 },
          result: { content: [{ type: 'text', text: 'ok' }], structured_content: null },
          status: 'completed',
        },
      },
      {
        type: 'item.completed',
        item: todo([
          { text: 'read', completed: true },
          { text: 'fix', completed: false },
        ]),
      },
      { type: 'error', message: 'the turn was interrupted' },
      { type: 'turn.failed', error: { message: 'the turn was interrupted' } },
    ]);
  });
});

describe('parseExecArgs', () => {
  it('reads the flags @openai/codex-sdk passes, with resume after them and --image after resume', () => {
    const args = parseExecArgs([
      '--experimental-json',
      '--config',
      'openai_base_url="http://127.0.0.1:1/v1"',
      '--model',
      'm',
      '--thread-source',
      'sdk',
      '--sandbox',
      'read-only',
      '--cd',
      '/w',
      '--add-dir',
      '/a',
      '--add-dir',
      '/b',
      '--skip-git-repo-check',
      '--output-schema',
      '/s.json',
      'resume',
      'abc',
      '--image',
      '/i.png',
    ]);
    expect(args).toEqual({
      prompt: null,
      promptFromStdin: true,
      model: 'm',
      cd: '/w',
      config: ['openai_base_url="http://127.0.0.1:1/v1"'],
      approvalPolicy: undefined,
      sandbox: 'read-only',
      addDirs: ['/a', '/b'],
      images: ['/i.png'],
      outputSchema: '/s.json',
      outputLastMessage: undefined,
      output: 'codex',
      resume: { id: 'abc' },
      threadSource: 'sdk',
      ephemeral: false,
      bypassHookTrust: false,
      help: false,
    });
    expect(parseExecArgs(['resume', '--last', '--all', 'go on'])).toMatchObject({
      resume: { last: true, all: true },
      prompt: 'go on',
      promptFromStdin: false,
    });
    expect(parseExecArgs(['-'])).toMatchObject({ prompt: null, promptFromStdin: true });
  });
});
