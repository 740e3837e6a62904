import { describe, expect, it } from 'vitest';
import { classifyMessage } from '../../../src-preload/protocol/client-messages';

const delta = { threadId: 't1', turnId: 'u1', itemId: 'i1', delta: 'hello ' };
const approval = {
  threadId: 't1',
  turnId: 'u1',
  itemId: 'i1',
  startedAtMs: 1_700_000_000_000,
  command: 'ls',
  cwd: '/p',
};

describe('classifyMessage', () => {
  it.each<[string, unknown, string]>([
    ['a notification', { method: 'item/agentMessage/delta', params: delta }, 'notification'],
    [
      'a notification with a stray jsonrpc field',
      { jsonrpc: '2.0', method: 'item/agentMessage/delta', params: delta },
      'notification',
    ],
    [
      'a notification with an id that is not one (read as a notification)',
      { id: {}, method: 'item/agentMessage/delta', params: delta },
      'notification',
    ],
    ['an unknown notification', { method: 'weft/nothing', params: {} }, 'ignored'],
    [
      'a notification whose params do not parse',
      { method: 'item/agentMessage/delta', params: { threadId: 1 } },
      'ignored',
    ],
    ['a server request', { id: 3, method: 'item/commandExecution/requestApproval', params: approval }, 'serverRequest'],
    ['an unknown server request', { id: 3, method: 'weft/nothing', params: {} }, 'badServerRequest'],
    [
      'a server request whose params do not parse',
      { id: 'r', method: 'item/commandExecution/requestApproval', params: {} },
      'badServerRequest',
    ],
    ['a response', { id: 4, result: { ok: true } }, 'response'],
    ['a response whose result is null', { id: 4, result: null }, 'response'],
    ['a response without a result', { id: 4 }, 'ignored'],
    ['an error', { id: 5, error: { code: -32602, message: 'bad' } }, 'error'],
    ['an error without an id', { id: null, error: { code: -32700, message: 'not JSON' } }, 'error'],
    ['an error and a result (the error wins)', { id: 5, result: {}, error: { code: -1, message: 'x' } }, 'error'],
    ['a malformed error with a result (a response)', { id: 5, result: {}, error: 'x' }, 'response'],
    ['a method that is not a string, with a result', { id: 6, method: 7, result: 1 }, 'response'],
    ['an array', [{ method: 'item/agentMessage/delta', params: delta }], 'ignored'],
    ['null', null, 'ignored'],
    ['a string', 'item/agentMessage/delta', 'ignored'],
    ['an empty object', {}, 'ignored'],
  ])('%s', (_what, message, kind) => {
    expect(classifyMessage(message, 'The test client').kind).toBe(kind);
  });

  it('keeps the payloads it parsed', () => {
    expect(classifyMessage({ method: 'item/agentMessage/delta', params: delta }, 'c')).toEqual({
      kind: 'notification',
      notification: { method: 'item/agentMessage/delta', params: delta },
    });
    expect(classifyMessage({ id: 'x', error: { code: -32602, message: 'bad', data: { a: 1 } } }, 'c')).toEqual({
      kind: 'error',
      id: 'x',
      error: { code: -32602, message: 'bad', data: { a: 1 } },
    });
    expect(classifyMessage({ id: 3, method: 'weft/nothing' }, 'The test client')).toEqual({
      kind: 'badServerRequest',
      id: 3,
      code: -32601,
      message: 'The test client does not handle the server request "weft/nothing".',
    });
  });
});
