// Lint rules, including the layering rule of docs/ARCHITECTURE.md (lint/layers.js, enforced by
// lint/layering.js as `weft/layering`): a layer violation is a lint error.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import globals from 'globals';
import weft from './lint/layering.js';

export default tseslint.config(
  { ignores: ['node_modules/', 'dist/', 'out/', 'release/', 'test-results/', 'bench/.work/'] },
  js.configs.recommended,
  ...tseslint.configs.strict,
  {
    languageOptions: { globals: { ...globals.node } },
    plugins: { weft },
    rules: {
      '@typescript-eslint/no-explicit-any': 'error',
      '@typescript-eslint/consistent-type-imports': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
    },
  },
  {
    files: ['src-main/**/*.ts', 'src-preload/**/*.ts', 'src-renderer/**/*.{ts,tsx}'],
    rules: { 'weft/layering': 'error' },
  },
  {
    files: ['src-renderer/**/*.{ts,tsx}'],
    languageOptions: { globals: { ...globals.browser } },
  },
  {
    files: ['**/*.mjs', '**/*.js'],
    ...tseslint.configs.disableTypeChecked,
  },
);
