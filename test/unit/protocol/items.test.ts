import { describe, expect, it } from 'vitest';
import type { z } from 'zod';
import {
  AgentMessageItem,
  BrowserActionItem,
  CollabAgentToolCallItem,
  CommandExecutionItem,
  ContextCompactionItem,
  EnteredReviewModeItem,
  ExitedReviewModeItem,
  describeZodError,
  FileChangeItem,
  HookPromptItem,
  ImageViewItem,
  McpToolCallItem,
  PlanItem,
  ReasoningItem,
  ThreadItem,
  UserMessageItem,
  WebSearchItem,
} from '../../../src-preload/protocol';

type Case = {
  kind: string;
  schema: z.ZodType;
  valid: Record<string, unknown>;
  broken: Record<string, unknown>;
  /** What describeZodError must say about `broken`. */
  message: string;
};

const cases: Case[] = [
  {
    kind: 'userMessage',
    schema: UserMessageItem,
    valid: {
      type: 'userMessage',
      id: 'item-1',
      content: [
        { type: 'text', text: 'Fix the failing test in src/parse.ts' },
        { type: 'image', url: 'data:image/png;base64,iVBORw0KGgo=' },
        { type: 'localImage', path: '/home/ada/shot.png' },
      ],
    },
    broken: { type: 'userMessage', id: 'item-1', content: [{ type: 'text' }] },
    message: 'item.content[0].text: expected string, received undefined',
  },
  {
    kind: 'agentMessage',
    schema: AgentMessageItem,
    valid: { type: 'agentMessage', id: 'item-2', text: 'The test now passes.', phase: 'final_answer' },
    broken: { type: 'agentMessage', id: 'item-2', text: 'Done', phase: 'epilogue' },
    message: 'item.phase: expected one of "commentary", "final_answer"',
  },
  {
    kind: 'reasoning',
    schema: ReasoningItem,
    valid: {
      type: 'reasoning',
      id: 'item-3',
      summary: ['**Reading the test**', 'It expects a trailing newline.'],
      content: [],
    },
    broken: { type: 'reasoning', id: 'item-3', summary: 'thinking', content: [] },
    message: 'item.summary: expected array, received string',
  },
  {
    kind: 'plan',
    schema: PlanItem,
    valid: { type: 'plan', id: 'item-4', text: '1. Reproduce\n2. Fix\n3. Test' },
    broken: { type: 'plan', text: '1. Reproduce' },
    message: 'item.id: expected string, received undefined',
  },
  {
    kind: 'commandExecution',
    schema: CommandExecutionItem,
    valid: {
      type: 'commandExecution',
      id: 'call_abc',
      command: "/bin/bash -lc 'rg -n parse src'",
      cwd: '/home/ada/project',
      processId: null,
      status: 'completed',
      commandActions: [
        { type: 'search', command: 'rg -n parse src', query: 'parse', path: 'src' },
        { type: 'read', command: 'cat src/a.ts', name: 'a.ts', path: 'src/a.ts' },
        { type: 'listFiles', command: 'ls', path: null },
        { type: 'unknown', command: 'make' },
      ],
      aggregatedOutput: 'src/parse.ts:3:export function parse()\n',
      exitCode: 0,
      durationMs: 41,
    },
    broken: {
      type: 'commandExecution',
      id: 'call_abc',
      command: 'ls',
      cwd: '/tmp',
      processId: null,
      status: 'running',
      commandActions: [],
      aggregatedOutput: null,
      exitCode: null,
      durationMs: null,
    },
    message: 'item.status: expected one of "inProgress", "completed", "failed", "declined"',
  },
  {
    kind: 'fileChange',
    schema: FileChangeItem,
    valid: {
      type: 'fileChange',
      id: 'call_patch',
      changes: [
        { path: '/p/src/a.ts', kind: { type: 'update', move_path: null }, diff: '@@ -1 +1 @@\n-a\n+b\n' },
        { path: '/p/src/old.ts', kind: { type: 'update', move_path: '/p/src/new.ts' }, diff: '' },
        { path: '/p/src/added.ts', kind: { type: 'add' }, diff: 'export {};\n' },
        { path: '/p/src/gone.ts', kind: { type: 'delete' }, diff: 'x\n' },
      ],
      status: 'inProgress',
    },
    broken: {
      type: 'fileChange',
      id: 'call_patch',
      changes: [{ path: '/p/a.ts', kind: { type: 'update' }, diff: '' }],
      status: 'completed',
    },
    message: 'item.changes[0].kind.move_path: expected string, received undefined',
  },
  {
    kind: 'mcpToolCall',
    schema: McpToolCallItem,
    valid: {
      type: 'mcpToolCall',
      id: 'call_mcp',
      server: 'github',
      tool: 'search_issues',
      status: 'completed',
      arguments: { query: 'is:open label:bug', limit: 5 },
      result: { content: [{ type: 'text', text: '3 issues' }], structuredContent: null },
      error: null,
      durationMs: 812,
    },
    broken: {
      type: 'mcpToolCall',
      id: 'call_mcp',
      server: 'github',
      tool: 'search_issues',
      status: 'failed',
      arguments: {},
      result: null,
      error: { reason: 'timeout' },
      durationMs: null,
    },
    message: 'item.error.message: expected string, received undefined',
  },
  {
    kind: 'collabAgentToolCall',
    schema: CollabAgentToolCallItem,
    valid: {
      type: 'collabAgentToolCall',
      id: 'call_wait',
      tool: 'wait',
      status: 'completed',
      senderThreadId: 'parent',
      receiverThreadIds: ['child'],
      prompt: null,
      model: null,
      reasoningEffort: null,
      agentsStates: { child: { status: 'completed', message: 'ACK: done' } },
    },
    broken: {
      type: 'collabAgentToolCall',
      id: 'call_wait',
      tool: 'wait',
      status: 'completed',
      senderThreadId: 'parent',
      receiverThreadIds: ['child'],
      prompt: null,
      model: null,
      reasoningEffort: null,
      agentsStates: { child: { status: 'done', message: null } },
    },
    message:
      'item.agentsStates.child.status: expected one of "pendingInit", "running", "interrupted", "completed", "errored", "shutdown", "notFound"',
  },
  {
    kind: 'webSearch',
    schema: WebSearchItem,
    valid: { type: 'webSearch', id: 'ws_1', query: 'zod v4 discriminated union' },
    broken: { type: 'webSearch', id: 'ws_1', query: 42 },
    message: 'item.query: expected string, received number',
  },
  {
    kind: 'imageView',
    schema: ImageViewItem,
    valid: { type: 'imageView', id: 'call_img', path: '/home/ada/project/screenshot.png' },
    broken: { type: 'imageView', id: 'call_img' },
    message: 'item.path: expected string, received undefined',
  },
  {
    kind: 'contextCompaction',
    schema: ContextCompactionItem,
    valid: { type: 'contextCompaction', id: 'compact_1' },
    broken: { type: 'contextCompaction', id: null },
    message: 'item.id: expected string, received null',
  },
  {
    kind: 'enteredReviewMode',
    schema: EnteredReviewModeItem,
    valid: { type: 'enteredReviewMode', id: 'r1', review: 'the uncommitted changes' },
    broken: { type: 'enteredReviewMode', id: 'r1' },
    message: 'item.review: expected string, received undefined',
  },
  {
    kind: 'exitedReviewMode',
    schema: ExitedReviewModeItem,
    valid: {
      type: 'exitedReviewMode',
      id: 'r2',
      review: 'No findings.',
      weftReview: {
        findings: [],
        overallCorrectness: 'patch is correct',
        overallExplanation: '',
        overallConfidence: null,
      },
    },
    broken: {
      type: 'exitedReviewMode',
      id: 'r2',
      review: 'x',
      weftReview: {
        findings: [{ title: 't', body: 'b', priority: 4, confidence: 0.5, path: 'a.ts', lineStart: 1, lineEnd: 1 }],
        overallCorrectness: '',
        overallExplanation: '',
        overallConfidence: null,
      },
    },
    message: 'item.weftReview.findings[0].priority: expected number to be <=3',
  },
  {
    kind: 'hookPrompt',
    schema: HookPromptItem,
    valid: {
      type: 'hookPrompt',
      id: 'hp1',
      fragments: [{ text: 'Run the tests before you stop.', hookRunId: 'stop:0:/home/me/.weft/hooks.json' }],
    },
    broken: { type: 'hookPrompt', id: 'hp1', fragments: [{ text: 'Run the tests before you stop.' }] },
    message: 'item.fragments[0].hookRunId: expected string, received undefined',
  },
  {
    kind: 'browserAction',
    schema: BrowserActionItem,
    valid: {
      type: 'browserAction',
      id: 'b1',
      action: 'screenshot',
      status: 'completed',
      target: 'viewport',
      url: 'http://localhost:5173/',
      output: 'Screenshot of http://localhost:5173/ — "App": 1229×768 px.',
      error: null,
      screenshot: {
        path: '/home/me/.weft/sessions/2026/11/29/rollout-x.files/browser-b1.png',
        width: 1229,
        height: 768,
      },
      durationMs: 84,
    },
    broken: {
      type: 'browserAction',
      id: 'b1',
      action: 'scroll',
      status: 'completed',
      target: '',
      url: null,
      output: null,
      error: null,
      screenshot: null,
      durationMs: 1,
    },
    message:
      'item.action: expected one of "open", "screenshot", "click", "type", "read", "console", "evaluate", "close"',
  },
];

describe('ThreadItem kinds', () => {
  it('covers every kind of the union', () => {
    const kinds = ThreadItem.options.map((option) => option.shape.type.value).sort();
    expect(kinds).toEqual(cases.map((c) => c.kind).sort());
  });

  for (const c of cases) {
    it(`${c.kind}: parses a realistic item, through its own schema and through ThreadItem`, () => {
      expect(c.schema.parse(c.valid)).toEqual(c.valid);
      expect(ThreadItem.parse(c.valid)).toEqual(c.valid);
    });

    it(`${c.kind}: rejects a broken item naming the field`, () => {
      const direct = c.schema.safeParse(c.broken);
      expect(direct.success).toBe(false);
      const viaUnion = ThreadItem.safeParse(c.broken);
      expect(viaUnion.success).toBe(false);
      if (viaUnion.success) return;
      expect(describeZodError(viaUnion.error, 'item')).toBe(c.message);
    });
  }

  it('rejects an unknown item type, listing the known ones', () => {
    const result = ThreadItem.safeParse({ type: 'imageGeneration', id: 'x', status: 'completed' });
    expect(result.success).toBe(false);
    if (result.success) return;
    expect(describeZodError(result.error, 'item')).toBe(
      'item.type: expected one of "userMessage", "hookPrompt", "agentMessage", "reasoning", "plan", "commandExecution", ' +
        '"fileChange", "mcpToolCall", "collabAgentToolCall", "webSearch", "imageView", "contextCompaction", "enteredReviewMode", "exitedReviewMode", "browserAction"',
    );
  });

  it('drops fields the protocol does not name (Codex sends extras such as memoryCitation)', () => {
    const parsed = ThreadItem.parse({ type: 'agentMessage', id: 'a', text: 'hi', phase: null, memoryCitation: null });
    expect(parsed).toEqual({ type: 'agentMessage', id: 'a', text: 'hi', phase: null });
  });
});
