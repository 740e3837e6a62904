import { describe, expect, it } from 'vitest';
import { isKnownRolloutLine, isKnownResponseItem, parseRolloutLine, RolloutLine } from '../../../src-preload/protocol';

// Lines as Codex writes them (one JSON object per line).
const sessionMeta = JSON.stringify({
  timestamp: '2025-10-01T12:00:00.123Z',
  type: 'session_meta',
  payload: {
    id: '0199a5c2-7c1e-7d30-9a51-3f1d2b6c8e01',
    timestamp: '2025-10-01T12:00:00.100Z',
    cwd: '/home/ada/project',
    originator: 'codex_cli_rs',
    cli_version: '0.46.0',
    source: 'cli',
    model_provider: 'openai',
    base_instructions: { text: 'You are Codex, a coding agent.' },
    dynamic_tools: [],
    git: { commit_hash: '9f2c1e7', branch: 'main', repository_url: 'git@github.com:ada/project.git' },
  },
});

const functionCall = JSON.stringify({
  timestamp: '2025-10-01T12:00:05.001Z',
  type: 'response_item',
  payload: {
    type: 'function_call',
    name: 'shell_command',
    arguments: '{"command":"cargo test","workdir":"/home/ada/project"}',
    call_id: 'call_5Qp0',
  },
});

const tokenCount = JSON.stringify({
  timestamp: '2025-10-01T12:00:06.500Z',
  type: 'event_msg',
  payload: {
    type: 'token_count',
    info: {
      total_token_usage: {
        input_tokens: 5120,
        cached_input_tokens: 4096,
        output_tokens: 210,
        reasoning_output_tokens: 64,
        total_tokens: 5330,
      },
      last_token_usage: {
        input_tokens: 5120,
        cached_input_tokens: 4096,
        output_tokens: 210,
        reasoning_output_tokens: 64,
        total_tokens: 5330,
      },
      model_context_window: 272000,
    },
    rate_limits: null,
  },
});

const turnContext = JSON.stringify({
  timestamp: '2025-10-01T12:00:01.000Z',
  type: 'turn_context',
  payload: {
    turn_id: '0199a5c2-8000-7000-8000-000000000001',
    cwd: '/home/ada/project',
    approval_policy: 'on-request',
    sandbox_policy: { type: 'workspace-write', writable_roots: [], network_access: false },
    model: 'gpt-5-codex',
    effort: 'medium',
    summary: 'auto',
    truncation_policy: { mode: 'tokens', limit: 10000 },
  },
});

const compacted = JSON.stringify({
  timestamp: '2025-10-01T13:00:00.000Z',
  type: 'compacted',
  payload: {
    message: 'Summary of the work so far.',
    replacement_history: [
      { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'Fix the build' }] },
      { type: 'ghost_snapshot', ghost_commit: { id: 'abc' } },
    ],
  },
});

const futureKind = JSON.stringify({
  timestamp: '2025-10-01T13:00:01.000Z',
  type: 'thread_memory',
  payload: { summary: 'something new', version: 3 },
});

describe('parseRolloutLine', () => {
  it('parses a Codex session_meta line, keeping fields it does not name', () => {
    const result = parseRolloutLine(`${sessionMeta}\n`);
    expect(result.ok).toBe(true);
    if (!result.ok || !isKnownRolloutLine(result.line)) throw new Error('expected a known line');
    if (result.line.type !== 'session_meta') throw new Error(`expected session_meta, got ${result.line.type}`);
    expect(result.line.timestamp).toBe('2025-10-01T12:00:00.123Z');
    expect(result.line.payload.id).toBe('0199a5c2-7c1e-7d30-9a51-3f1d2b6c8e01');
    expect(result.line.payload.git?.branch).toBe('main');
    expect(result.line.payload.base_instructions).toEqual({ text: 'You are Codex, a coding agent.' });
    expect(result.line.payload.dynamic_tools).toEqual([]);
  });

  it('fills defaults for a session_meta from an older writer', () => {
    const old = JSON.stringify({
      timestamp: '2025-05-07T17:24:21.123Z',
      type: 'session_meta',
      payload: { id: 'abc', timestamp: '2025-05-07T17:24:21.000Z', cwd: '/p' },
    });
    const result = parseRolloutLine(old);
    expect(result).toEqual({
      ok: true,
      line: {
        timestamp: '2025-05-07T17:24:21.123Z',
        type: 'session_meta',
        payload: {
          id: 'abc',
          timestamp: '2025-05-07T17:24:21.000Z',
          cwd: '/p',
          originator: '',
          cli_version: '',
          source: 'unknown',
        },
      },
    });
  });

  it('parses a response_item function_call line', () => {
    const result = parseRolloutLine(functionCall);
    expect(result).toEqual({ ok: true, line: JSON.parse(functionCall) });
    if (!result.ok || !isKnownRolloutLine(result.line)) throw new Error('expected a known line');
    if (result.line.type !== 'response_item') throw new Error('expected a response_item line');
    const payload = result.line.payload;
    if (!isKnownResponseItem(payload) || payload.type !== 'function_call') throw new Error('expected a function_call');
    expect(payload.call_id).toBe('call_5Qp0');
  });

  it('parses event_msg, turn_context and compacted lines unchanged', () => {
    for (const text of [tokenCount, turnContext, compacted]) {
      expect(parseRolloutLine(text)).toEqual({ ok: true, line: JSON.parse(text) });
    }
  });

  it('keeps a line of an unknown type (payload untouched)', () => {
    const result = parseRolloutLine(futureKind);
    expect(result).toEqual({ ok: true, line: JSON.parse(futureKind) });
    if (result.ok) expect(isKnownRolloutLine(result.line)).toBe(false);
  });

  it('returns ok:false without throwing on garbage', () => {
    const garbage = [
      '',
      '   ',
      'not json at all',
      '{"timestamp":"2025-10-01T12:00:00Z","type":"sess',
      '[1,2,3]',
      'null',
      '42',
      '"text"',
    ];
    for (const text of garbage) {
      const result = parseRolloutLine(text);
      expect(result.ok).toBe(false);
      if (!result.ok) expect(result.error).not.toBe('');
    }
    expect(parseRolloutLine('{"torn": ')).toMatchObject({ ok: false, error: expect.stringMatching(/^not JSON/) });
  });

  it('names the field of a malformed known line', () => {
    const noTimestamp = JSON.parse(functionCall);
    delete noTimestamp.timestamp;
    expect(parseRolloutLine(JSON.stringify(noTimestamp))).toEqual({
      ok: false,
      error: 'timestamp: expected string, received undefined',
    });

    const badCall = JSON.parse(functionCall);
    delete badCall.payload.call_id;
    expect(parseRolloutLine(JSON.stringify(badCall))).toEqual({
      ok: false,
      error: 'payload.call_id: expected string, received undefined',
    });

    const badMeta = JSON.parse(sessionMeta);
    badMeta.payload.cwd = 7;
    expect(parseRolloutLine(JSON.stringify(badMeta))).toEqual({
      ok: false,
      error: 'payload.cwd: expected string, received number',
    });
  });

  it('the RolloutLine schema accepts exactly what parseRolloutLine accepts', () => {
    expect(RolloutLine.safeParse(JSON.parse(turnContext)).success).toBe(true);
    expect(RolloutLine.safeParse({ type: 'event_msg', payload: { type: 'x' } }).success).toBe(false);
  });
});
