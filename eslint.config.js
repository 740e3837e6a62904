// Lint rules, including the layering rule of docs/ARCHITECTURE.md (lint/layers.js, enforced by
// lint/layering.js as `weft/layering`): a layer violation is a lint error; and `weft/no-sync-fs`
// (lint/no-sync-fs.js): no synchronous node:fs call in src-main outside start-up and command-line code.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import globals from 'globals';
import reactHooks from 'eslint-plugin-react-hooks';
import layeringPlugin from './lint/layering.js';
import { noSyncFs } from './lint/no-sync-fs.js';
import { typeErrors } from './lint/type-errors.js';

const weft = {
  ...layeringPlugin,
  rules: { ...layeringPlugin.rules, 'no-sync-fs': noSyncFs, 'type-errors': typeErrors },
};

export default tseslint.config(
  { ignores: ['node_modules/', 'dist/', 'out/', 'release/', 'test-results/', 'bench/.work/'] },
  js.configs.recommended,
  ...tseslint.configs.strict,
  {
    languageOptions: {
      globals: { ...globals.node },
      // Type-aware rules read the TypeScript programs, each built once with \`ts.createProgram\` (\`project\`;
      // the command line is a single run): a file is read in the first of the three that holds it, so the
      // main process, preload, benches and scripts are checked with Node's types and no DOM
      // (tsconfig.node.json), the renderer with the DOM and no Node (tsconfig.renderer.json), and the tests
      // and build configs with both (tsconfig.json). \`weft/type-errors\` reports each program's errors, which
      // is what the three \`tsc\` passes check. The project service (\`projectService: true\`) builds the same
      // programs through tsserver's machinery, which opens and updates a project per linted file: about 7 s
      // more CPU for \`npm run lint\` (80 s against 86 s, measured with one program).
      parserOptions: {
        project: ['./tsconfig.node.json', './tsconfig.renderer.json', './tsconfig.json'],
        tsconfigRootDir: import.meta.dirname,
      },
    },
    plugins: { weft },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': 'error',
      '@typescript-eslint/switch-exhaustiveness-check': ['error', { considerDefaultExhaustiveForUnions: true }],
      '@typescript-eslint/no-explicit-any': 'error',
      '@typescript-eslint/consistent-type-imports': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      // tsc -p tsconfig.json's errors, from the program above (lint/type-errors.js).
      'weft/type-errors': 'error',
    },
  },
  {
    files: ['src-main/**/*.ts', 'src-preload/**/*.ts', 'src-renderer/**/*.{ts,tsx}'],
    rules: { 'weft/layering': 'error' },
  },
  {
    files: ['src-main/**/*.ts'],
    rules: { 'weft/no-sync-fs': 'error' },
  },
  {
    // Outside the source folders (tests, benches) the layering table does not apply, but electron stays
    // where it belongs: only src-main/electron/ and the preload import it.
    files: ['test/**/*.ts', 'bench/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        { paths: [{ name: 'electron', message: 'Only src-main/electron/ may import electron.' }] },
      ],
    },
  },
  {
    files: ['src-renderer/**/*.{ts,tsx}'],
    languageOptions: { globals: { ...globals.browser } },
  },
  {
    files: ['src-renderer/**/*.{ts,tsx}'],
    ...reactHooks.configs.flat.recommended,
  },
  {
    files: ['**/*.mjs', '**/*.js'],
    ...tseslint.configs.disableTypeChecked,
  },
);
