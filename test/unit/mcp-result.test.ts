import { describe, expect, it } from 'vitest';
import { toolOutputFor } from '../../src-main/mcp/result';

const texts = (parts: ReturnType<typeof toolOutputFor>): string[] =>
  parts.map((p) => ('text' in p && typeof p.text === 'string' ? p.text : `<${p.type}>`));

describe('MCP tool results as model input', () => {
  it('turns every content kind into something the model can read', () => {
    const parts = toolOutputFor(
      {
        content: [
          { type: 'text', text: 'plain' },
          { type: 'image', data: 'iVBORw0K', mimeType: 'image/png' },
          { type: 'audio', data: 'AAAA', mimeType: 'audio/wav' },
          { type: 'resource_link', uri: 'file:///a.txt', name: 'a.txt', mimeType: 'text/plain' },
          { type: 'resource', resource: { uri: 'mem://notes', mimeType: 'text/markdown', text: '# Notes' } },
          { type: 'resource', resource: { uri: 'mem://pic', mimeType: 'image/png', blob: 'iVBORw0K' } },
          { type: 'resource', resource: { uri: 'mem://bin', blob: 'AAAAAAAA' } },
        ],
      },
      1500,
    );
    expect(texts(parts)).toEqual([
      'Wall time: 1.5000 seconds\nOutput:',
      'plain',
      '<input_image>',
      '[audio (audio/wav, 3 bytes) that this model cannot hear]',
      'Resource link: file:///a.txt (a.txt, text/plain)',
      'Resource mem://notes (text/markdown):\n# Notes',
      '<input_image>',
      'Resource mem://bin (binary, 6 bytes of binary data)',
    ]);
    expect(parts[2]).toEqual({ type: 'input_image', image_url: 'data:image/png;base64,iVBORw0K' });
  });

  it('truncates long text in the middle within the token budget, like command output', () => {
    const long = `${'head '.repeat(2000)}${'tail '.repeat(2000)}`;
    const [, out] = texts(toolOutputFor({ content: [{ type: 'text', text: long }] }, 10, 100));
    expect(out?.length).toBeLessThan(600);
    expect(out?.startsWith('head head')).toBe(true);
    expect(out?.endsWith('tail ')).toBe(true);
    expect(out).toMatch(/truncated/);
  });

  it('gives structuredContent as JSON when no block carries text', () => {
    const parts = toolOutputFor({ content: [], structuredContent: { sum: 3 } }, 0);
    expect(texts(parts)[1]).toBe('{"sum":3}');
  });
});
