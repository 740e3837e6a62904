// What `weft/worktree/compare` says of one thread: what its worktree changed since its base commit, the
// commands it ran that look like tests, how its last turn ended and its last message.
import type { Thread, WeftWorktreeCompareEntry, WeftWorktreeTestRun } from '../../src-preload/protocol';
import { statsSince } from '../git/handoff-scan';
import { errorMessage } from '../util/errors';

/** Programs that run tests when they are the command (`./node_modules/.bin/vitest` too). */
const RUNNERS = new Set([
  'pytest',
  'py.test',
  'vitest',
  'jest',
  'mocha',
  'ava',
  'rspec',
  'phpunit',
  'ctest',
  'tox',
  'nox',
  'nosetests',
  'unittest',
]);
/** Build tools whose `test` (or `check`) subcommand runs tests: `npm test`, `npm run test:unit`, `make check`. */
const TOOLS = new Set([
  'npm',
  'pnpm',
  'yarn',
  'bun',
  'deno',
  'go',
  'cargo',
  'dotnet',
  'mvn',
  'gradle',
  'gradlew',
  'mix',
  'swift',
  'zig',
  'make',
  'just',
  'rake',
  'playwright',
]);
/** Words that only start another command: `npx vitest`, `bundle exec rspec`, `python -m pytest`, `timeout 60 go test`. */
const WRAPPERS = new Set(['npx', 'bunx', 'env', 'time', 'nice', 'exec', 'command', 'sudo', 'xvfb-run']);
const WRAPPER_PAIRS = new Set(['bundle exec', 'uv run', 'poetry run', 'pipenv run', 'python -m', 'python3 -m']);

/** The words of one simple command of a script, without leading `VAR=value` assignments and wrappers. */
function commandWords(simple: string): string[] {
  let words = simple
    .trim()
    .split(/\s+/)
    .filter((w) => w !== '');
  for (;;) {
    const first = words[0] ?? '';
    if (/^[A-Za-z_][A-Za-z0-9_]*=/.test(first) || WRAPPERS.has(first)) words = words.slice(1);
    else if (first === 'timeout') words = words.slice(2);
    else if (WRAPPER_PAIRS.has(`${first} ${words[1] ?? ''}`)) words = words.slice(2);
    else return words;
  }
}

/** Whether a command looks like a test run (the shell's own `test -f x`, or `grep pytest`, does not). */
export function looksLikeTest(command: string): boolean {
  return command.split(/[;&|()\n]+/).some((simple) => {
    const words = commandWords(simple);
    const program = (words[0] ?? '').split('/').at(-1) ?? '';
    if (RUNNERS.has(program)) return true;
    if (program === 'node') return words.includes('--test');
    if (!TOOLS.has(program)) return false;
    const sub = words.slice(1).find((w) => w !== 'run' && !w.startsWith('-'));
    return sub !== undefined && /^(?:test|tests|check)(?::|$)/.test(sub);
  });
}

/** The commands of the thread's turns that look like test runs, in the order they ran. */
export function testRuns(thread: Thread): WeftWorktreeTestRun[] {
  return thread.turns.flatMap((turn) =>
    turn.items.flatMap((item) =>
      item.type === 'commandExecution' && item.weftWorktreeSetup !== true && looksLikeTest(item.command)
        ? [{ command: item.command, status: item.status, exitCode: item.exitCode }]
        : [],
    ),
  );
}

/** The last agent message of the thread's last turn that has one. */
export function finalMessage(thread: Thread): string | null {
  for (const turn of [...thread.turns].reverse())
    for (const item of [...turn.items].reverse()) if (item.type === 'agentMessage') return item.text;
  return null;
}

/** The comparison entry of a thread, its turns loaded; `base`: its worktree's base commit (null: unknown). */
export async function compareEntry(thread: Thread, base: string | null): Promise<WeftWorktreeCompareEntry> {
  const worktree = thread.weftWorktree ?? null;
  const entry: WeftWorktreeCompareEntry = {
    threadId: thread.id,
    branch: worktree?.branch ?? null,
    worktree: worktree?.path ?? null,
    turnStatus: thread.turns.at(-1)?.status ?? null,
    files: [],
    insertions: 0,
    deletions: 0,
    tests: testRuns(thread),
    finalMessage: finalMessage(thread),
    problem: null,
  };
  if (worktree === null) return { ...entry, problem: "it works in the project's own folder, not in a worktree" };
  if (base === null) return { ...entry, problem: `the commit its worktree was made from cannot be found` };
  try {
    const files = await statsSince(worktree.path, base);
    return {
      ...entry,
      files,
      insertions: files.reduce((sum, f) => sum + (f.insertions ?? 0), 0),
      deletions: files.reduce((sum, f) => sum + (f.deletions ?? 0), 0),
    };
  } catch (error) {
    return { ...entry, problem: `its worktree ${worktree.path} cannot be read: ${errorMessage(error)}` };
  }
}
