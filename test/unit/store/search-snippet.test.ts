// Search snippets: the first user or agent message holding every word, cut around the first one, read
// from the rollout as a stream (Weft's event_msg lines and Codex 0.169's item_completed items).
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { rolloutSnippet, searchSnippets, searchWords, snippetOf } from '../../../src-main/store/search-snippet';

const line = (payload: object): string =>
  JSON.stringify({ timestamp: '2025-03-04T05:06:07.000Z', type: 'event_msg', payload });

async function rollout(lines: string[]): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'weft-snippet-'));
  const path = join(dir, 'rollout.jsonl');
  await writeFile(path, lines.join('\n') + '\n');
  return path;
}

describe('search snippets', () => {
  it('cuts the text around the first word, on one line', () => {
    const long = `${'a '.repeat(60)}the Orchard\nbasket ${'b '.repeat(80)}`;
    // 40 characters before the first word ("orch"), 140 in all, marked where cut.
    expect(snippetOf(long, searchWords('basket orch'))).toBe(
      `…${'a '.repeat(18)}the Orchard basket ${'b '.repeat(42)}b…`,
    );
    expect(snippetOf('no such thing', searchWords('orchard'))).toBeNull();
    expect(snippetOf('Short orchard.', searchWords('ORCHARD'))).toBe('Short orchard.');
  });

  it('finds the first message with every word, in either rollout form', async () => {
    const path = await rollout([
      JSON.stringify({ timestamp: 't', type: 'session_meta', payload: { id: 'x', note: 'orchard basket' } }),
      line({ type: 'user_message', message: 'Plan the orchard visit' }),
      line({ type: 'agent_message', message: 'Bring an orchard basket.' }),
    ]);
    expect(await rolloutSnippet(path, searchWords('orchard basket'))).toBe('Bring an orchard basket.');
    const codex = await rollout([
      line({ type: 'item_completed', item: { type: 'Reasoning', content: [{ type: 'Text', text: 'orchard' }] } }),
      line({
        type: 'item_completed',
        item: { type: 'AgentMessage', content: [{ type: 'Text', text: 'An orchard.' }] },
      }),
    ]);
    expect(await rolloutSnippet(codex, searchWords('orchard'))).toBe('An orchard.');
    expect(
      await searchSnippets(
        [
          { id: 'a', path },
          { id: 'b', path: codex },
          { id: 'c', path: null },
        ],
        'orchard',
      ),
    ).toEqual({
      a: 'Plan the orchard visit',
      b: 'An orchard.',
    });
    expect(await rolloutSnippet(join(path, 'missing'), searchWords('orchard'))).toBeNull();
  });
});
