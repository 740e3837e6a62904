// The layering rule "only src-main/electron/ imports electron" is a lint error (`weft/layering` in the
// source folders, `no-restricted-imports` in tests and benches; eslint.config.js). This
// lints one line as if it sat in various folders, so a config change that drops the ban fails here. The
// paths are files of the project: lint is type-aware, and a file outside the TypeScript project would not
// parse (no rule would run, and an allowed folder would pass for the wrong reason).
import { join } from 'node:path';
import { ESLint } from 'eslint';
import { describe, expect, it } from 'vitest';

const root = join(import.meta.dirname, '../../..');
const BAN_RULES: ReadonlySet<string | null> = new Set(['weft/layering', 'no-restricted-imports']);
const source = "import { app } from 'electron';\nexport const name = app.getName();\n";

const eslint = new ESLint({ cwd: root });

async function electronImportErrors(relativePath: string): Promise<string[]> {
  const [result] = await eslint.lintText(source, { filePath: join(root, relativePath) });
  expect(result?.messages.filter((m) => m.fatal === true) ?? [], relativePath).toEqual([]);
  return (result?.messages ?? [])
    .filter((m) => BAN_RULES.has(m.ruleId) && m.message.includes('electron'))
    .map((m) => m.message);
}

describe('the electron import ban', () => {
  it('fires in the core, the server, the renderer, the protocol and tests', async () => {
    for (const path of [
      'src-main/core/session.ts',
      'src-main/server/dispatcher.ts',
      'src-main/cli.ts',
      'src-renderer/components/VirtualList.tsx',
      'src-preload/protocol/bridge-api.ts',
      'test/unit/electron/electron-import-ban.test.ts',
      'bench/stall.bench.ts',
    ]) {
      expect(await electronImportErrors(path), path).not.toEqual([]);
    }
  });

  it('allows src-main/electron/', async () => {
    expect(await electronImportErrors('src-main/electron/app-files.ts')).toEqual([]);
  });
});
