import { describe, expect, it } from 'vitest';
import {
  ClientRequests,
  ConfigValueWriteParams,
  describeZodError,
  FsReadFileParams,
  InitializeParams,
  SandboxPolicy,
  ThreadForkParams,
  ThreadListParams,
  ThreadRollbackParams,
  ThreadStartParams,
  ThreadStartResult,
  ThreadTurnsListResult,
  TurnStartParams,
  type ClientRequestMethod,
} from '../../../src-preload/protocol';

function paramsError(method: ClientRequestMethod, params: unknown): string {
  const result = ClientRequests[method].params.safeParse(params);
  if (result.success) throw new Error(`${method} accepted ${JSON.stringify(params)}`);
  return describeZodError(result.error);
}

const thread = {
  id: '0199a5c2-7c1e-7d30-9a51-3f1d2b6c8e01',
  sessionId: '0199a5c2-7c1e-7d30-9a51-3f1d2b6c8e01',
  projectId: null,
  forkedFromId: null,
  preview: 'Fix the build',
  ephemeral: false,
  modelProvider: 'openai',
  createdAt: 1759320000,
  updatedAt: 1759320100,
  status: { type: 'idle' },
  path: '/home/ada/.weft/sessions/2025/10/01/rollout-2025-10-01T14-00-00-0199a5c2.jsonl',
  cwd: '/home/ada/project',
  cliVersion: '0.1.0',
  source: 'appServer',
  gitInfo: { sha: '9f2c1e7', branch: 'main', originUrl: null },
  name: null,
  turns: [],
};

describe('client request params', () => {
  it('parses the handshake as Codex clients send it', () => {
    const params = { clientInfo: { name: 'codex_vscode', title: 'Codex VS Code Extension', version: '0.1.0' } };
    expect(InitializeParams.parse(params)).toEqual(params);
    expect(
      InitializeParams.parse({ clientInfo: { name: 'x', title: null, version: '1' }, capabilities: null }),
    ).toEqual({
      clientInfo: { name: 'x', title: null, version: '1' },
      capabilities: null,
    });
    expect(paramsError('initialize', { clientInfo: { name: 'x' } })).toBe(
      'params.clientInfo.version: expected string, received undefined',
    );
  });

  it('drops unknown fields instead of failing (forward compatibility)', () => {
    const parsed = ThreadStartParams.parse({
      model: 'gpt-5-codex',
      personality: 'friendly',
      serviceTier: 'flex',
      dynamicTools: [{ name: 'x' }],
    });
    expect(parsed).toEqual({ model: 'gpt-5-codex' });
    const turn = TurnStartParams.parse({
      threadId: 't1',
      input: [{ type: 'text', text: 'hi', text_elements: [] }],
      outputSchema: { type: 'object' },
    });
    expect(turn).toEqual({ threadId: 't1', input: [{ type: 'text', text: 'hi' }], outputSchema: { type: 'object' } });
  });

  it("reads Codex's approval policies, any effort string and mention / skill inputs", () => {
    const granular = (sandbox_approval: boolean) => ({
      granular: { sandbox_approval, rules: true, mcp_elicitations: false, skill_approval: false },
    });
    expect(TurnStartParams.parse({ threadId: 't1', input: [], approvalPolicy: granular(true) }).approvalPolicy).toBe(
      'on-request',
    );
    expect(ThreadStartParams.parse({ approvalPolicy: granular(false), approvalsReviewer: 'auto_review' })).toEqual({
      approvalPolicy: 'never',
      approvalsReviewer: 'auto_review',
    });
    expect(ThreadStartParams.parse({ approvalPolicy: 'on-failure' }).approvalPolicy).toBe('on-failure');
    expect(TurnStartParams.parse({ threadId: 't1', input: [], effort: 'max' }).effort).toBe('max');
    expect(paramsError('turn/start', { threadId: 't1', input: [], effort: '' })).toMatch(/^params\.effort: /);
    const input = [
      { type: 'mention', name: 'README', path: '/p/README.md' },
      { type: 'skill', name: 'release', path: '/p/.agents/skills/release/SKILL.md' },
    ];
    expect(TurnStartParams.parse({ threadId: 't1', input }).input).toEqual(input);
  });

  it('accepts null for optional overrides, as Codex clients send', () => {
    const params = {
      model: null,
      modelProvider: null,
      cwd: null,
      approvalPolicy: null,
      sandbox: null,
      config: null,
      baseInstructions: null,
      developerInstructions: null,
      ephemeral: null,
    };
    expect(ThreadStartParams.parse(params)).toEqual(params);
    expect(ThreadListParams.parse({ cursor: null, limit: 25, sortKey: 'created_at' })).toEqual({
      cursor: null,
      limit: 25,
      sortKey: 'created_at',
    });
  });

  it('takes the full set of thread/start overrides', () => {
    const params = {
      model: 'gpt-5-codex',
      modelProvider: 'openai',
      cwd: '/home/ada/project',
      approvalPolicy: 'on-request',
      sandbox: 'workspace-write',
      config: { model_reasoning_effort: 'high', 'sandbox_workspace_write.network_access': true },
      baseInstructions: 'You are a careful engineer.',
      developerInstructions: 'Prefer small patches.',
      ephemeral: true,
    };
    expect(ThreadStartParams.parse(params)).toEqual(params);
    expect(paramsError('thread/start', { sandbox: 'workspaceWrite' })).toBe(
      'params.sandbox: expected one of "read-only", "workspace-write", "danger-full-access"',
    );
    expect(paramsError('thread/start', { approvalPolicy: 'unlessTrusted' })).toBe(
      'params.approvalPolicy: expected one of "untrusted", "on-failure", "on-request", "never"',
    );
  });

  it('names the missing required field', () => {
    expect(paramsError('thread/read', {})).toBe('params.threadId: expected string, received undefined');
    expect(paramsError('thread/name/set', { threadId: 't' })).toBe('params.name: expected string, received undefined');
    expect(paramsError('turn/steer', { threadId: 't', input: [] })).toBe(
      'params.expectedTurnId: expected string, received undefined',
    );
    expect(paramsError('turn/interrupt', { turnId: 'u' })).toBe('params.threadId: expected string, received undefined');
    expect(paramsError('thread/archive', undefined)).toBe('params: expected object, received undefined');
  });

  it('checks turn/start input and sandbox policy', () => {
    const params = {
      threadId: 't1',
      input: [
        { type: 'text', text: 'Run tests' },
        { type: 'localImage', path: '/tmp/screenshot.png' },
      ],
      cwd: '/home/ada/project',
      approvalPolicy: 'never',
      sandboxPolicy: { type: 'workspaceWrite', writableRoots: ['/home/ada/project'], networkAccess: true },
      model: 'gpt-5-codex',
      effort: 'xhigh',
      summary: 'concise',
    };
    expect(TurnStartParams.parse(params)).toEqual(params);
    expect(paramsError('turn/start', { ...params, input: [{ type: 'audio', data: '' }] })).toBe(
      'params.input[0].type: expected one of "text", "image", "localImage", "mention", "skill"',
    );
    expect(paramsError('turn/start', { ...params, effort: 7 })).toBe('params.effort: expected string, received number');
    expect(paramsError('turn/start', { threadId: 't1' })).toBe('params.input: expected array, received undefined');
  });

  it('validates rollback, fork, fs and config params', () => {
    expect(ThreadRollbackParams.parse({ threadId: 't', numTurns: 2 })).toEqual({ threadId: 't', numTurns: 2 });
    expect(paramsError('thread/rollback', { threadId: 't', numTurns: 0 })).toMatch(/^params\.numTurns: .*>=1/);
    expect(ThreadForkParams.parse({ threadId: 't', weftTurnId: 'turn-3', model: null })).toEqual({
      threadId: 't',
      weftTurnId: 'turn-3',
      model: null,
    });
    expect(FsReadFileParams.parse({ path: '/etc/hosts' })).toEqual({ path: '/etc/hosts' });
    expect(paramsError('fs/readFile', { path: 'relative/file.ts' })).toBe('params.path: must be an absolute path');
    expect(ConfigValueWriteParams.parse({ keyPath: 'model', value: 'gpt-5', mergeStrategy: 'replace' })).toEqual({
      keyPath: 'model',
      value: 'gpt-5',
      mergeStrategy: 'replace',
    });
    expect(paramsError('config/value/write', { keyPath: 'model' })).toMatch(/^params\.value: /);
  });
});

describe('results and shared objects', () => {
  it('parses a thread/start result with a sandbox policy object', () => {
    const result = {
      thread,
      model: 'gpt-5-codex',
      modelProvider: 'openai',
      cwd: '/home/ada/project',
      approvalPolicy: 'on-request',
      weftApprovalPolicy: 'on-failure',
      approvalsReviewer: 'user',
      sandbox: {
        type: 'workspaceWrite',
        writableRoots: [],
        networkAccess: false,
        excludeTmpdirEnvVar: false,
        excludeSlashTmp: false,
      },
      reasoningEffort: 'medium',
    };
    expect(ThreadStartResult.parse(result)).toEqual(result);
    expect(ThreadStartResult.safeParse({ ...result, approvalPolicy: 'on-failure' }).success).toBe(false);
    const granular = { granular: { sandbox_approval: false, rules: true, mcp_elicitations: false } };
    expect(ThreadStartResult.parse({ ...result, approvalPolicy: granular }).approvalPolicy).toEqual(granular);
  });

  it('parses every sandbox policy and rejects kebab-case tags', () => {
    for (const policy of [
      { type: 'readOnly' },
      { type: 'readOnly', networkAccess: true },
      { type: 'dangerFullAccess' },
    ]) {
      expect(SandboxPolicy.parse(policy)).toEqual(policy);
    }
    expect(SandboxPolicy.safeParse({ type: 'workspace-write' }).success).toBe(false);
  });

  it('reads turns without timing fields as null (older peers)', () => {
    const page = ThreadTurnsListResult.parse({
      data: [{ id: 'turn-1', items: [], status: 'completed', error: null }],
      nextCursor: null,
    });
    expect(page.data[0]).toEqual({
      id: 'turn-1',
      items: [],
      status: 'completed',
      error: null,
      startedAt: null,
      completedAt: null,
      durationMs: null,
    });
  });
});
