// The layering rule "only src-main/electron/ imports electron" is a lint error (`weft/layering` in the
// source folders, `no-restricted-imports` in tests and benches; eslint.config.js). This takes the project's
// lint configuration for files of various folders (calculateConfigForFile) and runs its ban rules alone
// on one line as if it sat in each, so a config change that drops the ban fails here. Only the ban rules
// run, without type information: building the type-aware program for a whole lint took 20 s.
import { join } from 'node:path';
import { ESLint, Linter } from 'eslint';
import { describe, expect, it } from 'vitest';

const root = join(import.meta.dirname, '../../..');
const BAN_RULES: ReadonlySet<string> = new Set(['weft/layering', 'no-restricted-imports']);
const source = "import { app } from 'electron';\nexport const name = app.getName();\n";

const eslint = new ESLint({ cwd: root });

async function electronImportErrors(relativePath: string): Promise<string[]> {
  const filePath = join(root, relativePath);
  const config = (await eslint.calculateConfigForFile(filePath)) as Linter.Config;
  const rules = Object.fromEntries(Object.entries(config.rules ?? {}).filter(([name]) => BAN_RULES.has(name)));
  const { parserOptions: _typed, ...languageOptions } = config.languageOptions ?? {};
  const messages = new Linter({ cwd: root }).verify(
    source,
    [
      {
        files: ['**/*.ts', '**/*.tsx'],
        ...(config.plugins === undefined ? {} : { plugins: config.plugins }),
        languageOptions: { ...languageOptions, parserOptions: { ecmaFeatures: { jsx: true } } },
        rules,
      },
    ],
    filePath,
  );
  expect(
    messages.filter((m) => m.fatal === true),
    relativePath,
  ).toEqual([]);
  return messages
    .filter((m) => m.ruleId !== null && BAN_RULES.has(m.ruleId) && m.message.includes('electron'))
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
