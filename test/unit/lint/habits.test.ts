// The lint habits the project keeps (eslint.config.js): promises are awaited or handled, switches over a
// union name every member, and the renderer follows the React hooks rules. This checks the configuration
// each kind of file gets, so a rule switched off (or scoped away from a folder) fails here.
import { resolve } from 'node:path';
import { ESLint } from 'eslint';
import { describe, expect, it } from 'vitest';

const repo = resolve(import.meta.dirname, '../../..');
const eslint = new ESLint({ cwd: repo });

type Severity = 0 | 1 | 2 | 'off' | 'warn' | 'error';
async function rulesFor(rel: string): Promise<Record<string, Severity | [Severity, ...unknown[]]>> {
  const config = (await eslint.calculateConfigForFile(resolve(repo, rel))) as {
    rules: Record<string, Severity | [Severity, ...unknown[]]>;
    languageOptions: { parserOptions?: { project?: unknown } };
  };
  // Type-aware: the parser reads each file in the first program that holds it (node, renderer, then the
  // root one with every file), so that the lint reports what the three tsc passes would.
  expect(config.languageOptions.parserOptions?.project).toEqual([
    './tsconfig.node.json',
    './tsconfig.renderer.json',
    './tsconfig.json',
  ]);
  return config.rules;
}

function severity(entry: Severity | [Severity, ...unknown[]] | undefined): Severity | undefined {
  return Array.isArray(entry) ? entry[0] : entry;
}

const TYPE_AWARE = [
  '@typescript-eslint/no-floating-promises',
  '@typescript-eslint/no-misused-promises',
  '@typescript-eslint/switch-exhaustiveness-check',
];

describe('lint habits', () => {
  for (const rel of ['src-main/core/session.ts', 'src-renderer/views/Composer.tsx', 'test/unit/lint/habits.test.ts']) {
    it(`${rel}: type-aware promise and switch rules are errors`, async () => {
      const rules = await rulesFor(rel);
      for (const rule of TYPE_AWARE) expect([rule, severity(rules[rule])]).toEqual([rule, 2]);
      // A switch over a union names every member unless it has a `default:`.
      expect(rules['@typescript-eslint/switch-exhaustiveness-check']).toEqual([
        2,
        expect.objectContaining({ considerDefaultExhaustiveForUnions: true }),
      ]);
    });
  }

  it('the renderer follows the React hooks rules, as errors or warnings (lint allows no warnings)', async () => {
    const rules = await rulesFor('src-renderer/views/Composer.tsx');
    for (const rule of ['react-hooks/rules-of-hooks', 'react-hooks/refs', 'react-hooks/set-state-in-effect'])
      expect([rule, severity(rules[rule])]).toEqual([rule, 2]);
    expect(severity(rules['react-hooks/exhaustive-deps'])).toBe(1);
  });
});
