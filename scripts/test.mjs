// `npm test`: the build first (the tests run the built `weft` and its UI), then the tests (`vitest run`)
// and the static checks of scripts/checks.mjs side by side. Most test files spend much of their time
// waiting on the processes they drive, which leaves a core idle now and then; the checks run at a lower
// CPU priority (nice 10) and so fill that idle time rather than taking cores from the tests. The checks'
// report is printed after the tests'; the script fails when the build, a test or a check failed.
//
//   node scripts/test.mjs [vitest arguments…]
import { spawn } from 'node:child_process';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');

/** Runs a command to its end; resolves with its exit code (1 when it could not start or was killed). */
function run(command, args, { capture = false } = {}) {
  return new Promise((resolve) => {
    const child = spawn(command, args, {
      cwd: ROOT,
      stdio: ['ignore', capture ? 'pipe' : 'inherit', capture ? 'pipe' : 'inherit'],
    });
    const output = [];
    child.stdout?.on('data', (chunk) => output.push(chunk));
    child.stderr?.on('data', (chunk) => output.push(chunk));
    const text = () => Buffer.concat(output).toString('utf8');
    child.on('error', (error) => resolve({ code: 1, text: `could not start ${command}: ${error.message}\n` }));
    child.on('close', (code) => resolve({ code: code ?? 1, text: text() }));
  });
}

// Every Node process of the run (vitest's workers, the checks, each `weft` a test starts with its own
// WEFT_HOME) shares one compile cache: a module is compiled once per run, not once per process.
process.env.NODE_COMPILE_CACHE ??= join(tmpdir(), 'weft-test-compile-cache');

const started = performance.now();
const build = await run(process.execPath, [join(ROOT, 'scripts', 'checks.mjs'), 'build'], { capture: true });
process.stdout.write(build.text);
if (build.code !== 0) process.exit(1);

const checks = run(process.execPath, [join(ROOT, 'scripts', 'checks.mjs'), '--nice', '--skip', 'build'], {
  capture: true,
});
const tests = run(join(ROOT, 'node_modules', '.bin', 'vitest'), ['run', ...process.argv.slice(2)]);
const [testsDone, checksDone] = await Promise.all([tests, checks]);
process.stdout.write(`\nStatic checks (run beside the tests):\n${checksDone.text}`);
const minutes = ((performance.now() - started) / 60_000).toFixed(1);
const failed = [testsDone.code !== 0 && 'tests', checksDone.code !== 0 && 'checks'].filter(Boolean);
console.log(
  failed.length === 0
    ? `npm test passed in ${minutes} min`
    : `npm test: ${failed.join(' and ')} failed (${minutes} min)`,
);
process.exit(failed.length === 0 ? 0 : 1);
