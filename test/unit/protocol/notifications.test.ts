import { describe, expect, it } from 'vitest';
import {
  CommandExecutionApprovalDecision,
  CommandExecutionRequestApprovalParams,
  CommandExecutionRequestApprovalResult,
  describeZodError,
  ErrorNotification,
  FileChangeRequestApprovalResult,
  ReasoningSummaryPartAddedNotification,
  ReasoningTextDeltaNotification,
  ServerNotifications,
  ServerRequestResolvedNotification,
  ThreadTokenUsageUpdatedNotification,
  ToolRequestUserInputParams,
  ToolRequestUserInputResult,
  TurnPlanUpdatedNotification,
  WarningNotification,
} from '../../../src-preload/protocol';

const usage = {
  totalTokens: 5330,
  inputTokens: 5120,
  cachedInputTokens: 4096,
  outputTokens: 210,
  reasoningOutputTokens: 64,
};

describe('notifications', () => {
  it('parses token usage, plan, reasoning and resolution notifications', () => {
    const tokens = {
      threadId: 't',
      turnId: 'u',
      tokenUsage: { total: usage, last: usage, modelContextWindow: 272000 },
    };
    expect(ThreadTokenUsageUpdatedNotification.parse(tokens)).toEqual(tokens);
    expect(
      ThreadTokenUsageUpdatedNotification.parse({
        ...tokens,
        tokenUsage: { ...tokens.tokenUsage, modelContextWindow: null },
      }),
    ).toMatchObject({ tokenUsage: { modelContextWindow: null } });

    const plan = {
      threadId: 't',
      turnId: 'u',
      explanation: 'Fix first, then test.',
      plan: [
        { step: 'Reproduce the failure', status: 'completed' },
        { step: 'Patch the parser', status: 'inProgress' },
        { step: 'Run the suite', status: 'pending' },
      ],
    };
    expect(TurnPlanUpdatedNotification.parse(plan)).toEqual(plan);
    const badPlan = TurnPlanUpdatedNotification.safeParse({ ...plan, plan: [{ step: 'x', status: 'in_progress' }] });
    expect(badPlan.success).toBe(false);
    if (!badPlan.success) {
      expect(describeZodError(badPlan.error)).toBe(
        'params.plan[0].status: expected one of "pending", "inProgress", "completed"',
      );
    }

    const part = { threadId: 't', turnId: 'u', itemId: 'r1', summaryIndex: 1 };
    expect(ReasoningSummaryPartAddedNotification.parse(part)).toEqual(part);
    const raw = { threadId: 't', turnId: 'u', itemId: 'r1', delta: 'Let me', contentIndex: 0 };
    expect(ReasoningTextDeltaNotification.parse(raw)).toEqual(raw);
    expect(ReasoningTextDeltaNotification.safeParse({ ...raw, contentIndex: undefined }).success).toBe(false);

    expect(ServerRequestResolvedNotification.parse({ threadId: 't', requestId: 3 })).toEqual({
      threadId: 't',
      requestId: 3,
    });
    expect(ServerRequestResolvedNotification.parse({ threadId: 't', requestId: 'r-3' })).toEqual({
      threadId: 't',
      requestId: 'r-3',
    });
  });

  it('parses error and warning notifications', () => {
    const error = {
      error: {
        message: 'stream disconnected before completion',
        codexErrorInfo: 'ResponseStreamDisconnected',
        additionalDetails: null,
      },
      willRetry: true,
      threadId: 't',
      turnId: 'u',
    };
    expect(ErrorNotification.parse(error)).toEqual(error);
    expect(ErrorNotification.parse({ ...error, error: { message: 'x' } })).toEqual({
      ...error,
      error: { message: 'x' },
    });
    expect(WarningNotification.parse({ message: 'sandbox unavailable' })).toEqual({ message: 'sandbox unavailable' });
    expect(WarningNotification.parse({ message: 'm', threadId: 't' })).toEqual({ message: 'm', threadId: 't' });
  });

  it('parses item/started with a full item and rejects a bad one naming the field', () => {
    const schema = ServerNotifications['item/started'];
    const params = {
      threadId: 't',
      turnId: 'u',
      item: { type: 'plan', id: 'p', text: '1. Do it' },
      startedAtMs: 1_759_320_000_000,
    };
    expect(schema.parse(params)).toEqual(params);
    const bad = schema.safeParse({
      threadId: 't',
      turnId: 'u',
      item: { type: 'plan', id: 'p' },
      startedAtMs: 1_759_320_000_000,
    });
    expect(bad.success).toBe(false);
    if (!bad.success) expect(describeZodError(bad.error)).toBe('params.item.text: expected string, received undefined');
  });
});

describe('server requests', () => {
  it('parses a command approval request and every decision form', () => {
    const params = {
      threadId: 't',
      turnId: 'u',
      itemId: 'call_1',
      startedAtMs: 1_759_320_000_000,
      reason: 'needs network access',
      command: 'npm install',
      cwd: '/home/ada/project',
      commandActions: [{ type: 'unknown', command: 'npm install' }],
      proposedExecpolicyAmendment: ['npm', 'install'],
    };
    expect(CommandExecutionRequestApprovalParams.parse(params)).toEqual(params);

    for (const decision of ['accept', 'acceptForSession', 'decline', 'cancel']) {
      expect(CommandExecutionRequestApprovalResult.parse({ decision })).toEqual({ decision });
    }
    const amendment = { acceptWithExecpolicyAmendment: { execpolicy_amendment: ['npm', 'install'] } };
    expect(CommandExecutionApprovalDecision.parse(amendment)).toEqual(amendment);
    expect(CommandExecutionApprovalDecision.safeParse('approve').success).toBe(false);
    expect(CommandExecutionApprovalDecision.safeParse({ acceptWithExecpolicyAmendment: {} }).success).toBe(false);
  });

  it('parses file change decisions with Weft per-hunk verdicts', () => {
    const result = {
      decision: 'accept',
      weftHunks: [
        { path: '/p/src/a.ts', hunk: 0, decision: 'accept' },
        { path: '/p/src/a.ts', hunk: 1, decision: 'decline', comment: 'keep the old error message' },
      ],
    };
    expect(FileChangeRequestApprovalResult.parse(result)).toEqual(result);
    expect(FileChangeRequestApprovalResult.parse({ decision: 'decline' })).toEqual({ decision: 'decline' });
    const bad = FileChangeRequestApprovalResult.safeParse({
      decision: 'accept',
      weftHunks: [{ path: 'a', hunk: -1, decision: 'accept' }],
    });
    expect(bad.success).toBe(false);
    if (!bad.success) expect(describeZodError(bad.error, 'result')).toMatch(/^result\.weftHunks\[0\]\.hunk: /);
    expect(FileChangeRequestApprovalResult.safeParse({ decision: { acceptWithExecpolicyAmendment: {} } }).success).toBe(
      false,
    );
  });

  it('parses user-input questions and answers keyed by question id', () => {
    const params = {
      threadId: 't',
      turnId: 'u',
      itemId: 'call_q',
      isBlocking: true,
      questions: [
        {
          id: 'db',
          header: 'Database',
          question: 'Which database should the tests use?',
          isOther: true,
          options: [
            { label: 'sqlite', description: 'In-memory, fastest' },
            { label: 'postgres', description: 'Matches production' },
          ],
        },
        { id: 'token', header: 'Token', question: 'Paste the API token', isSecret: true, options: null },
      ],
    };
    expect(ToolRequestUserInputParams.parse(params)).toEqual(params);
    const answers = { answers: { db: { answers: ['sqlite'] }, token: { answers: ['sk-test'] } } };
    expect(ToolRequestUserInputResult.parse(answers)).toEqual(answers);
    const bad = ToolRequestUserInputResult.safeParse({ answers: { db: 'sqlite' } });
    expect(bad.success).toBe(false);
    if (!bad.success)
      expect(describeZodError(bad.error, 'result')).toBe('result.answers.db: expected object, received string');
  });
});
