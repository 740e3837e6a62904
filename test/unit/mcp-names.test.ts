import { describe, expect, it } from 'vitest';
import { assignToolNames, MAX_TOOL_NAME, sanitizeName } from '../../src-main/mcp/names';

describe('MCP tool names', () => {
  it('replaces characters providers refuse and keeps short names as they are', () => {
    expect(sanitizeName('get-tiny.image')).toBe('get_tiny_image');
    expect(assignToolNames([{ server: 'docs', tool: 'search' }])).toEqual([
      { server: 'docs', tool: 'search', namespace: 'mcp__docs', name: 'search', flatName: 'mcp__docs__search' },
    ]);
  });

  it('hashes tools whose sanitized names collide, whatever order they come in', () => {
    const pairs = [
      { server: 'fs', tool: 'read-file' },
      { server: 'fs', tool: 'read_file' },
      { server: 'fs', tool: 'write' },
    ];
    const forward = assignToolNames(pairs);
    const backward = assignToolNames([...pairs].reverse());
    expect(forward).toEqual(backward);
    const names = forward.map((t) => t.flatName);
    expect(new Set(names).size).toBe(3);
    expect(names).toContain('mcp__fs__write');
    expect(names.filter((n) => /^mcp__fs__read_file_[0-9a-f]{12}$/.test(n))).toHaveLength(2);
  });

  it('keeps every name within the provider limit', () => {
    const [long] = assignToolNames([{ server: 'a-server-with-a-rather-long-name-indeed', tool: 'x'.repeat(100) }]);
    expect(long?.flatName.length).toBeLessThanOrEqual(MAX_TOOL_NAME);
    expect(long?.flatName).toBe(`${long?.namespace}__${long?.name}`);
    expect(long?.namespace).toMatch(/^mcp__a_server_with_+[0-9a-f]{12}$/);
    expect(long?.namespace.length).toBe(32);
  });

  it('gives servers whose names sanitize alike their own namespaces', () => {
    const named = assignToolNames([
      { server: 'my-server', tool: 't' },
      { server: 'my_server', tool: 't' },
    ]);
    expect(new Set(named.map((n) => n.namespace)).size).toBe(2);
  });
});
