// `weft/no-sync-fs` (lint/no-sync-fs.js): synchronous node:fs calls in src-main are errors, however they
// are imported, outside the allow-list of start-up and command-line code; the repository's own config
// applies it to src-main (a probe file on a request path is flagged); every allow-list entry has a reason
// and still names code with such calls.
import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { ESLint, Linter, RuleTester } from 'eslint';
import tseslint from 'typescript-eslint';
import { describe, expect, it } from 'vitest';
import { allowedSyncFs, noSyncFs } from '../../../lint/no-sync-fs.js';

RuleTester.describe = describe;
RuleTester.it = it;
RuleTester.itOnly = it.only;

const repo = resolve(import.meta.dirname, '../../..');
const file = (rel: string): string => join(repo, rel);

const tester = new RuleTester({
  languageOptions: { parser: tseslint.parser, ecmaVersion: 2023, sourceType: 'module' },
});

const error = (name: string) => ({
  message: `${name} blocks the event loop the host serves every thread from: use node:fs/promises. If this code runs only at start-up or in a command-line tool, add the file with its reason to allowedSyncFs in lint/no-sync-fs.js; for one call, "// eslint-disable-next-line weft/no-sync-fs -- <reason>".`,
});

tester.run('weft/no-sync-fs', noSyncFs, {
  valid: [
    {
      name: 'fs/promises',
      filename: file('src-main/checkpoints/x.ts'),
      code: "import { readFile } from 'node:fs/promises';\nawait readFile('a');",
    },
    {
      name: 'asynchronous calls and types of node:fs',
      filename: file('src-main/checkpoints/x.ts'),
      code: "import { watch, constants, type Stats } from 'node:fs';\nwatch('.', () => undefined);",
    },
    {
      name: 'a Sync function of another module',
      filename: file('src-main/tools/x.ts'),
      code: "import { execFileSync } from 'node:child_process';\nexecFileSync('true');",
    },
    {
      name: 'a command-line sub-command',
      filename: file('src-main/cli/x.ts'),
      code: "import { existsSync } from 'node:fs';\nexistsSync('a');",
    },
  ],
  invalid: [
    {
      name: 'a named import, each use',
      filename: file('src-main/checkpoints/x.ts'),
      code: "import { readFileSync, writeFileSync } from 'node:fs';\nreadFileSync('a');\nwriteFileSync('b', '');\n[1].map(() => readFileSync('c'));",
      errors: [error('readFileSync'), error('writeFileSync'), error('readFileSync')],
    },
    {
      name: 'an aliased import from fs',
      filename: file('src-main/server/x.ts'),
      code: "import { statSync as st } from 'fs';\nst('a');",
      errors: [error('statSync')],
    },
    {
      name: 'a namespace import',
      filename: file('src-main/store/x.ts'),
      code: "import * as fs from 'node:fs';\nfs.readdirSync('a');\nfs.readdir('a', () => undefined);",
      errors: [error('fs.readdirSync')],
    },
    {
      name: 'a default import, computed member',
      filename: file('src-main/tools/x.ts'),
      code: "import fs from 'node:fs';\nfs['existsSync']('a');",
      errors: [error('fs.existsSync')],
    },
  ],
});

describe('weft/no-sync-fs in the repository', () => {
  const eslint = new ESLint({ cwd: repo });

  it('is an error for src-main, and a probe on a request path is flagged while an eslint-disable with a reason is not', async () => {
    const probePath = file('src-main/server/handlers/probe.ts');
    const config = (await eslint.calculateConfigForFile(probePath)) as {
      rules: Record<string, unknown>;
      plugins: Record<string, { rules?: Record<string, { meta?: unknown }> }>;
    };
    expect(config.rules['weft/no-sync-fs']).toEqual([2]);
    // The rule the repository's config registers is this one (loaded by ESLint as its own module instance).
    expect(config.plugins['weft']?.rules?.['no-sync-fs']?.meta).toEqual(noSyncFs.meta);
    // The probe is linted with that rule as a file of src-main (the type-aware parser of the whole config
    // knows only the files of tsconfig.json).
    const probe = readFileSync(join(import.meta.dirname, 'probes', 'sync-fs-probe.ts.txt'), 'utf8');
    const linter = new Linter({ cwd: repo });
    const messages = linter.verify(
      probe,
      [
        {
          files: ['**/*.ts'],
          languageOptions: { parser: tseslint.parser },
          plugins: { weft: { rules: { 'no-sync-fs': noSyncFs } } },
          rules: { 'weft/no-sync-fs': 'error' },
        },
      ],
      { filename: probePath },
    );
    expect(messages.map((m) => [m.ruleId, m.line, m.message.split(' ')[0]])).toEqual([
      ['weft/no-sync-fs', 6, 'readFileSync'],
      ['weft/no-sync-fs', 10, 'fs.statSync'],
    ]);
    // The same probe in a command-line sub-command is allowed.
    expect(
      linter
        .verify(
          probe,
          [
            {
              files: ['**/*.ts'],
              languageOptions: { parser: tseslint.parser },
              plugins: { weft: { rules: { 'no-sync-fs': noSyncFs } } },
              rules: { 'weft/no-sync-fs': 'error' },
            },
          ],
          { filename: file('src-main/cli/probe.ts') },
        )
        .filter((m) => m.ruleId === 'weft/no-sync-fs'),
    ).toEqual([]);
  });

  it('every allow-list entry has a reason and names code that still makes synchronous fs calls', () => {
    for (const [entry, reason] of Object.entries(allowedSyncFs)) {
      expect(reason.length, entry).toBeGreaterThan(30);
      const path = file(entry);
      expect(existsSync(path), entry).toBe(true);
      const files = entry.endsWith('/')
        ? readdirSync(path, { recursive: true, encoding: 'utf8' })
            .map((name) => join(path, name))
            .filter((name) => name.endsWith('.ts') && statSync(name).isFile())
        : [path];
      expect(
        files.some((name) => /\b[a-z][A-Za-z]*Sync\(/.test(readFileSync(name, 'utf8'))),
        `${entry} no longer has synchronous fs calls: remove it from allowedSyncFs`,
      ).toBe(true);
    }
  });
});
