import { readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { makeTempWorkspace, makeWeftHome } from '../../support/workspace';

describe('makeTempWorkspace', () => {
  it('writes the given files, nested folders included, and removes everything on cleanup', async () => {
    const ws = await makeTempWorkspace({ 'README.md': '# hi\n', 'src/deep/a.ts': 'export const a = 1;\n' });

    expect(await ws.read('src/deep/a.ts')).toBe('export const a = 1;\n');
    expect(await readFile(join(ws.dir, 'README.md'), 'utf8')).toBe('# hi\n');
    expect(ws.path('src/deep/a.ts')).toBe(join(ws.dir, 'src', 'deep', 'a.ts'));

    await ws.cleanup();
    await expect(stat(ws.dir)).rejects.toMatchObject({ code: 'ENOENT' });
  });

  it('refuses paths that lead outside the workspace', async () => {
    const ws = await makeTempWorkspace();
    try {
      expect(() => ws.path('../escape.txt')).toThrow('"../escape.txt" is not a relative path inside');
      expect(() => ws.path('/etc/passwd')).toThrow('is not a relative path inside');
      expect(ws.path('..dotted-name')).toBe(join(ws.dir, '..dotted-name'));
    } finally {
      await ws.cleanup();
    }
  });
});

describe('makeWeftHome', () => {
  it('writes config.toml only when a config is given', async () => {
    const withConfig = await makeWeftHome('model = "m"\n');
    const without = await makeWeftHome();
    try {
      expect(await readFile(join(withConfig.dir, 'config.toml'), 'utf8')).toBe('model = "m"\n');
      await expect(stat(join(without.dir, 'config.toml'))).rejects.toMatchObject({ code: 'ENOENT' });
    } finally {
      await withConfig.cleanup();
      await without.cleanup();
    }
  });
});
