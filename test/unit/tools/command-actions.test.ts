import { describe, expect, it } from 'vitest';
import { parseCommandActions } from '../../../src-main/tools/command-actions';

describe('parseCommandActions', () => {
  it('recognises reads, listings and searches', () => {
    expect(parseCommandActions('cat src/a.ts')).toEqual([
      { type: 'read', command: 'cat src/a.ts', name: 'a.ts', path: 'src/a.ts' },
    ]);
    expect(parseCommandActions("sed -n '1,20p' lib/b.py")).toEqual([
      { type: 'read', command: "sed -n '1,20p' lib/b.py", name: 'b.py', path: 'lib/b.py' },
    ]);
    expect(parseCommandActions('ls -la src')).toEqual([{ type: 'listFiles', command: 'ls -la src', path: 'src' }]);
    expect(parseCommandActions('rg --files')).toEqual([{ type: 'listFiles', command: 'rg --files', path: null }]);
    expect(parseCommandActions('rg -n "needle here" src')).toEqual([
      { type: 'search', command: 'rg -n "needle here" src', query: 'needle here', path: 'src' },
    ]);
  });

  it('calls anything compound or unfamiliar unknown', () => {
    for (const cmd of ['cat a | wc -l', 'npm test', 'echo $HOME', 'cat']) {
      expect(parseCommandActions(cmd)).toEqual([{ type: 'unknown', command: cmd }]);
    }
  });
});
