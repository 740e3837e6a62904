// `weft/type-errors` (lint/type-errors.js): the lint reports TypeScript's own errors of each file, read from
// the program its type-aware rules use (which is how `npm test` type-checks tsconfig.json's files once,
// not twice), at the place `tsc` names, and nothing for a file without errors.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Linter } from 'eslint';
import tseslint from 'typescript-eslint';
import ts from 'typescript';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { typeErrors } from '../../../lint/type-errors.js';

const WRONG =
  "export const count: number = 'three';\n\nexport function twice(n: number): number {\n  return n * 2;\n}\ntwice('4');\n";
const RIGHT = 'export const count: number = 3;\n';

describe('weft/type-errors', () => {
  let dir = '';
  let program: ts.Program;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'weft-type-errors-'));
    await writeFile(join(dir, 'wrong.ts'), WRONG);
    await writeFile(join(dir, 'right.ts'), RIGHT);
    program = ts.createProgram([join(dir, 'wrong.ts'), join(dir, 'right.ts')], {
      strict: true,
      noEmit: true,
      lib: ['lib.es2023.d.ts'],
      types: [],
    });
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  const lint = (name: string, code: string): Linter.LintMessage[] =>
    new Linter({ configType: 'flat', cwd: dir }).verify(
      code,
      [
        {
          files: ['**/*.ts'],
          languageOptions: { parser: tseslint.parser, parserOptions: { programs: [program] } },
          plugins: { weft: { rules: { 'type-errors': typeErrors } } },
          rules: { 'weft/type-errors': 'error' },
        },
      ],
      join(dir, name),
    );

  it("reports each of the file's type errors where tsc does, with tsc's code and message", () => {
    const messages = lint('wrong.ts', WRONG);
    expect(messages.map((m) => [m.line, m.column, m.message, m.severity])).toEqual([
      [1, 14, "TS2322: Type 'string' is not assignable to type 'number'.", 2],
      [6, 7, "TS2345: Argument of type 'string' is not assignable to parameter of type 'number'.", 2],
    ]);
    const tsc = ts.getPreEmitDiagnostics(program, program.getSourceFile(join(dir, 'wrong.ts')));
    expect(tsc.map((d) => d.code)).toEqual([2322, 2345]);
  });

  it('reports nothing for a file without errors', () => {
    expect(lint('right.ts', RIGHT)).toEqual([]);
  });
});

// The lint builds one program per tsconfig (node, renderer, root: eslint.config.js) and reads each file in
// the first that holds it: a file is checked with its own program's settings, and what belongs to no file
// is reported once for each program.
describe('weft/type-errors over several programs', () => {
  const USES_DOM = 'export const title = (): string => document.title;\n';
  let dir = '';
  let node: ts.Program;
  let browser: ts.Program;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'weft-type-errors-'));
    await writeFile(join(dir, 'main.ts'), USES_DOM);
    await writeFile(join(dir, 'page.ts'), USES_DOM);
    await writeFile(join(dir, 'other.ts'), RIGHT);
    // Each program names a types package that is not there: an error of the program, in no file.
    const options = { strict: true, noEmit: true, types: ['weft-missing-types'] };
    node = ts.createProgram([join(dir, 'main.ts'), join(dir, 'other.ts')], { ...options, lib: ['lib.es2023.d.ts'] });
    browser = ts.createProgram([join(dir, 'page.ts')], { ...options, lib: ['lib.es2023.d.ts', 'lib.dom.d.ts'] });
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  const lint = (name: string, code: string): string[] =>
    new Linter({ configType: 'flat', cwd: dir })
      .verify(
        code,
        [
          {
            files: ['**/*.ts'],
            languageOptions: { parser: tseslint.parser, parserOptions: { programs: [node, browser] } },
            plugins: { weft: { rules: { 'type-errors': typeErrors } } },
            rules: { 'weft/type-errors': 'error' },
          },
        ],
        join(dir, name),
      )
      .map((m) => m.message.slice(0, 7));

  it("checks each file with its own program's settings, and reports each program's own errors once", () => {
    // main.ts is in the program without the DOM: `document` is unknown there; the missing types once.
    expect(lint('main.ts', USES_DOM).sort()).toEqual(['TS2584:', 'TS2688:']);
    // page.ts is in the program with the DOM: no error in the file; that program's missing types once.
    expect(lint('page.ts', USES_DOM)).toEqual(['TS2688:']);
    // Another file of the first program: its program's errors were reported already.
    expect(lint('other.ts', RIGHT)).toEqual([]);
  });
});
