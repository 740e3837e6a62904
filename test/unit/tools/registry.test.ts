import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { ToolRegistry } from '../../../src-main/tools/registry';
import { testToolContext } from '../../support/tool-context';
import { functionTool, type ToolCall, type ToolContext, type ToolHandler } from '../../../src-main/tools/types';

function ctx(signal = new AbortController().signal): ToolContext {
  return testToolContext({ signal });
}

/** A tool whose calls finish only when the test says so, recording start and end order. */
function gatedTool(name: string, parallel: boolean, log: string[], gates: Map<string, () => void>): ToolHandler {
  return functionTool({
    name,
    parallel,
    args: z.object({ id: z.string() }),
    spec: { type: 'function', name, description: '', strict: false, parameters: {} },
    handle: async (args: { id: string }) => {
      log.push(`start ${args.id}`);
      await new Promise<void>((resolve) => gates.set(args.id, resolve));
      log.push(`end ${args.id}`);
      return { output: `out ${args.id}`, success: true };
    },
  });
}

const call = (name: string, id: string): ToolCall => ({
  kind: 'function',
  callId: id,
  name,
  arguments: JSON.stringify({ id }),
});

async function until(check: () => boolean): Promise<void> {
  while (!check()) await new Promise((r) => setImmediate(r));
}

describe('ToolRegistry', () => {
  it('turns model mistakes into outputs, never exceptions', async () => {
    const reg = new ToolRegistry().register(
      functionTool({
        name: 'echo',
        parallel: true,
        args: z.object({ text: z.string() }),
        spec: { type: 'function', name: 'echo', description: '', strict: false, parameters: {} },
        handle: async (a: { text: string }) => {
          if (a.text === 'boom') throw new Error('kaput');
          return { output: a.text, success: true };
        },
      }),
    );
    expect(await reg.dispatch({ kind: 'function', callId: '1', name: 'nope', arguments: '{}' }, ctx())).toEqual({
      output: 'unsupported call: nope',
      success: false,
    });
    expect((await reg.dispatch({ kind: 'function', callId: '2', name: 'echo', arguments: '{' }, ctx())).output).toMatch(
      /^failed to parse function arguments: /,
    );
    expect(
      await reg.dispatch({ kind: 'function', callId: '3', name: 'echo', arguments: '{"text": 1}' }, ctx()),
    ).toEqual({ output: expect.stringMatching(/^failed to parse function arguments: text: /), success: false });
    expect(
      await reg.dispatch({ kind: 'function', callId: '4', name: 'echo', arguments: '{"text": "boom"}' }, ctx()),
    ).toEqual({ output: 'execution error: kaput', success: false });
    expect(
      await reg.dispatch({ kind: 'function', callId: '5', name: 'echo', arguments: '{"text": "hi"}' }, ctx()),
    ).toEqual({ output: 'hi', success: true });
  });

  it('overlaps parallel calls, serialises exclusive ones, and keeps call order in results', async () => {
    const log: string[] = [];
    const gates = new Map<string, () => void>();
    const reg = new ToolRegistry()
      .register(gatedTool('par', true, log, gates))
      .register(gatedTool('excl', false, log, gates));
    const results = reg.dispatchAll([call('par', 'a'), call('par', 'b'), call('excl', 'c'), call('par', 'd')], ctx());

    await until(() => gates.has('a') && gates.has('b'));
    expect(log).toEqual(['start a', 'start b']);
    gates.get('b')?.();
    await until(() => log.includes('end b'));
    expect(gates.has('c')).toBe(false);
    gates.get('a')?.();
    await until(() => gates.has('c'));
    expect(gates.has('d')).toBe(false);
    gates.get('c')?.();
    await until(() => gates.has('d'));
    gates.get('d')?.();
    expect((await results).map((r) => r.output)).toEqual(['out a', 'out b', 'out c', 'out d']);
    expect(log).toEqual(['start a', 'start b', 'end b', 'end a', 'start c', 'end c', 'start d', 'end d']);
  });

  it('refuses to register a tool twice', () => {
    const log: string[] = [];
    const reg = new ToolRegistry().register(gatedTool('x', true, log, new Map()));
    expect(() => reg.register(gatedTool('x', true, log, new Map()))).toThrow(/registered twice/);
  });
});
