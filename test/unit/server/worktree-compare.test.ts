// Which commands a comparison of worktree threads counts as test runs.
import { describe, expect, it } from 'vitest';
import { looksLikeTest } from '../../../src-main/server/worktree-compare';

describe('looksLikeTest', () => {
  it('knows test runners and build tools’ test commands, wherever they sit in a script', () => {
    const tests = [
      'npm test',
      'npm run test:unit',
      'pnpm test -- --run',
      'yarn test',
      'npx vitest run test/unit',
      './node_modules/.bin/jest --ci',
      'pytest -q tests/',
      'python -m pytest',
      'python3 -m unittest discover',
      'cargo test --workspace',
      'go test ./...',
      'make check',
      'make -j4 test',
      'cd app && npm test 2>&1 | tail -20',
      'node --test',
      'bundle exec rspec',
      'CI=1 timeout 120 npx playwright test',
      'npx jest; echo done',
    ];
    const others = [
      'test -f package.json && cat package.json',
      '[ -d test ] && ls test',
      'cat test/unit/a.test.ts',
      'git commit -m "add tests"',
      'npm install',
      'echo testing',
      'grep -rn pytest docs',
      'make build',
      'cargo build && ls target',
    ];
    expect(tests.filter((c) => !looksLikeTest(c))).toEqual([]);
    expect(others.filter((c) => looksLikeTest(c))).toEqual([]);
  });
});
