// The static checks of `npm test` (formatting, the type-checking passes, lint, import cycles, unused code,
// the build), run side by side: each is one single-threaded process, so on a machine of N cores N of them
// run at once (2 cores: about half the time of running them in turn). Each check's output is printed whole
// when it ends, with its time; the script fails when any check failed, after all have ended.
//
// The three type-checking passes (`tsc:node`, `tsc:renderer`, `tsc:all`) are checked by `lint`: the type-aware
// lint builds the same three programs (each file in the first of tsconfig.node.json, tsconfig.renderer.json
// and tsconfig.json that holds it), and its rule `weft/type-errors` (lint/type-errors.js) reports their
// errors, so the tsc passes run only when named without `lint`. Running them as well cost a second full
// type-check of every file: 37 s of CPU for `tsc:all`, then 30 s for `tsc:node` and `tsc:renderer` (whose
// files the lint's programs now check under their own settings, for 20 s more CPU in the lint).
//
//   node scripts/checks.mjs              every check (the tsc passes through lint)
//   node scripts/checks.mjs tsc:node …   the named checks only
//   --skip NAME                          every check but NAME (repeatable)
//   --nice                               at a lower CPU priority (nice 10), beside other work (scripts/test.mjs)
import { spawn } from 'node:child_process';
import { availableParallelism, setPriority } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const bin = (name) => join(ROOT, 'node_modules', '.bin', name);

/**
 * The checks, longest first (measured on 2 cores), so the long ones start at once. `within` names the check
 * that already makes this one's: it is left out whenever that one runs.
 */
const CHECKS = [
  { name: 'lint', argv: [bin('eslint'), '.', '--max-warnings', '0'] },
  { name: 'tsc:all', argv: [bin('tsc'), '-p', 'tsconfig.json'], within: 'lint' },
  { name: 'tsc:node', argv: [bin('tsc'), '-p', 'tsconfig.node.json'], within: 'lint' },
  { name: 'build', argv: ['npm', 'run', '-s', 'build'] },
  { name: 'tsc:renderer', argv: [bin('tsc'), '-p', 'tsconfig.renderer.json'], within: 'lint' },
  { name: 'knip', argv: [bin('knip'), '--no-progress'] },
  { name: 'format', argv: [bin('prettier'), '--check', '.', '--log-level', 'warn'] },
  { name: 'cycles', argv: ['npm', 'run', '-s', 'cycles'] },
];

const wanted = [];
const skipped = [];
let nice = false;
for (const [i, arg] of process.argv.entries()) {
  if (i < 2 || process.argv[i - 1] === '--skip') continue;
  if (arg === '--nice') nice = true;
  else if (arg === '--skip') skipped.push(process.argv[i + 1] ?? '');
  else wanted.push(arg);
}
const unknown = [...wanted, ...skipped].filter((name) => !CHECKS.some((check) => check.name === name));
if (unknown.length > 0) {
  console.error(`checks: no check named ${unknown.join(', ')} (there are: ${CHECKS.map((c) => c.name).join(', ')})`);
  process.exit(2);
}
const chosen = CHECKS.filter(
  (check) => (wanted.length === 0 || wanted.includes(check.name)) && !skipped.includes(check.name),
);
const queue = chosen.filter((check) => !chosen.some((other) => other.name === check.within));
for (const check of chosen)
  if (!queue.includes(check)) console.log(`· ${check.name}: checked by ${check.within} (not run again)`);
// Set before any check starts: the checks' processes inherit it.
if (nice) setPriority(10);

function run(check) {
  return new Promise((resolve) => {
    const started = performance.now();
    const [command, ...args] = check.argv;
    const child = spawn(command, args, { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'], env: process.env });
    const output = [];
    child.stdout.on('data', (chunk) => output.push(chunk));
    child.stderr.on('data', (chunk) => output.push(chunk));
    const finish = (code, failure) => {
      const seconds = ((performance.now() - started) / 1000).toFixed(1);
      const text = Buffer.concat(output).toString('utf8').trimEnd();
      const ok = code === 0;
      console.log(`${ok ? '✓' : '✗'} ${check.name} (${seconds} s)${ok ? '' : `: ${failure}`}`);
      if (text !== '') console.log(text.replace(/^/gm, '    '));
      resolve(ok);
    };
    child.on('error', (error) => finish(1, `could not start ${command}: ${error.message}`));
    child.on('close', (code, signal) => finish(code, signal === null ? `exit ${code}` : `killed by ${signal}`));
  });
}

const started = performance.now();
const lanes = Math.max(1, Math.min(availableParallelism(), queue.length));
let failed = 0;
await Promise.all(
  Array.from({ length: lanes }, async () => {
    for (let check = queue.shift(); check !== undefined; check = queue.shift()) if (!(await run(check))) failed++;
  }),
);
const seconds = ((performance.now() - started) / 1000).toFixed(1);
console.log(failed === 0 ? `checks passed in ${seconds} s` : `checks: ${failed} failed (${seconds} s)`);
process.exit(failed === 0 ? 0 : 1);
