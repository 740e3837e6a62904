import { describe, expect, it } from 'vitest';
import {
  ErrorCodes,
  JsonRpcError,
  JsonRpcMessage,
  JsonRpcNotification,
  JsonRpcRequest,
  JsonRpcResponse,
} from '../../../src-preload/protocol';

describe('JSON-RPC framing', () => {
  it('has the standard error codes', () => {
    expect(ErrorCodes).toEqual({
      ParseError: -32700,
      InvalidRequest: -32600,
      MethodNotFound: -32601,
      InvalidParams: -32602,
      InternalError: -32603,
    });
  });

  it('tells the four message kinds apart', () => {
    const request = { id: 7, method: 'thread/start', params: { model: 'gpt-5' } };
    const notification = { method: 'initialized' };
    const response = { id: 'abc', result: {} };
    const error = { id: 7, error: { code: -32602, message: 'params.threadId: expected string, received undefined' } };

    expect(JsonRpcRequest.safeParse(request).success).toBe(true);
    expect(JsonRpcRequest.safeParse(notification).success).toBe(false);
    expect(JsonRpcNotification.safeParse(notification).success).toBe(true);
    expect(JsonRpcResponse.safeParse(response).success).toBe(true);
    expect(JsonRpcResponse.safeParse(error).success).toBe(false);
    expect(JsonRpcError.safeParse(error).success).toBe(true);

    expect(JsonRpcMessage.parse(request)).toEqual(request);
    expect(JsonRpcMessage.parse(notification)).toEqual(notification);
    expect(JsonRpcMessage.parse(response)).toEqual(response);
    expect(JsonRpcMessage.parse(error)).toEqual(error);
  });

  it('accepts string and integer ids only', () => {
    expect(JsonRpcRequest.safeParse({ id: 'req-1', method: 'm' }).success).toBe(true);
    expect(JsonRpcRequest.safeParse({ id: 1.5, method: 'm' }).success).toBe(false);
    expect(JsonRpcRequest.safeParse({ id: true, method: 'm' }).success).toBe(false);
  });

  it('needs result to be present in a response (null is a value)', () => {
    expect(JsonRpcResponse.safeParse({ id: 1 }).success).toBe(false);
    expect(JsonRpcResponse.safeParse({ id: 1, result: null }).success).toBe(true);
  });

  it('allows a null id only on errors (parse errors)', () => {
    expect(JsonRpcError.safeParse({ id: null, error: { code: -32700, message: 'Parse error' } }).success).toBe(true);
    expect(JsonRpcResponse.safeParse({ id: null, result: {} }).success).toBe(false);
  });

  it('drops the jsonrpc field and keeps error data', () => {
    expect(JsonRpcMessage.parse({ jsonrpc: '2.0', id: 1, method: 'm' })).toEqual({ id: 1, method: 'm' });
    const withData = { id: 2, error: { code: -32603, message: 'boom', data: { detail: 'x' } } };
    expect(JsonRpcMessage.parse(withData)).toEqual(withData);
  });

  it('rejects things that are not messages', () => {
    for (const bad of [null, [], 'x', {}, { id: 1 }, { result: {} }]) {
      expect(JsonRpcMessage.safeParse(bad).success).toBe(false);
    }
  });
});
