// Lint rules, including the layering rules of docs/ARCHITECTURE.md: a layer violation is a lint error.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import globals from 'globals';

const nodeBuiltins = ['node:*', 'fs', 'path', 'os', 'child_process', 'net', 'http', 'https', 'crypto', 'stream'];

export default tseslint.config(
  { ignores: ['node_modules/', 'dist/', 'out/', 'release/', 'test-results/', 'bench/.work/'] },
  js.configs.recommended,
  ...tseslint.configs.strict,
  {
    languageOptions: { globals: { ...globals.node } },
    rules: {
      '@typescript-eslint/no-explicit-any': 'error',
      '@typescript-eslint/consistent-type-imports': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      'no-restricted-imports': ['error', { paths: [{ name: 'electron', message: 'Only src-main/electron/ may import electron.' }] }],
    },
  },
  {
    files: ['src-preload/protocol/**/*.ts'],
    rules: {
      'no-restricted-imports': ['error', { patterns: [{ regex: '^(?!zod$)(?!\\.{1,2}/).*', message: 'The protocol imports only zod.' }] }],
    },
  },
  {
    files: ['src-renderer/**/*.{ts,tsx}'],
    languageOptions: { globals: { ...globals.browser } },
    rules: {
      'no-restricted-imports': ['error', {
        paths: [{ name: 'electron', message: 'The renderer never imports electron.' }],
        patterns: [
          { group: nodeBuiltins, message: 'The renderer never imports Node built-ins.' },
          { regex: '(^|/)src-main(/|$)', message: 'The renderer talks to the core only through the protocol.' },
        ],
      }],
    },
  },
  {
    files: ['src-main/**/*.ts'],
    ignores: ['src-main/electron/**'],
    rules: {
      'no-restricted-imports': ['error', {
        paths: [{ name: 'electron', message: 'Only src-main/electron/ may import electron.' }],
        patterns: [{ regex: '(^|/)src-renderer(/|$)', message: 'The core never imports the renderer.' }],
      }],
    },
  },
  {
    files: ['src-main/faces/**/*.ts'],
    rules: {
      'no-restricted-imports': ['error', {
        paths: [{ name: 'electron', message: 'Only src-main/electron/ may import electron.' }],
        patterns: [
          { regex: '(^|/)src-renderer(/|$)', message: 'The core never imports the renderer.' },
          { regex: '^(\\.\\./)+(core|model|tools|safety|context|store|config)(/|$)', message: 'Faces reach the core only through the host client (src-main/faces/host-client.ts).' },
        ],
      }],
    },
  },
  {
    files: ['src-main/electron/**/*.ts'],
    rules: { 'no-restricted-imports': 'off' },
  },
  {
    files: ['**/*.mjs', '**/*.js'],
    ...tseslint.configs.disableTypeChecked,
  },
);
