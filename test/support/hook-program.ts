// A hook program for tests: a Node script that saves the JSON it reads on stdin (and the event it was
// configured for) as one file per run (written whole, then renamed), then acts as its mode says:
//   ok                exit 0
//   block:<word>      exit 2 with a reason on stderr when the payload mentions <word>, else exit 0
//   fail              exit 1 with output on stdout and stderr
//   hang              writes its pid beside the saved run and never ends (a child of its own too)
//   ctx               exit 0 with `additionalContext` "CTX from <event>" on stdout (Codex's hookSpecificOutput)
//   stop-once         a Stop block (`decision: "block"`, reason "STOPHOOK: run the tests first") unless the
//                     payload's `stop_hook_active` is true
//   stop-always       a Stop block every time (reason "STOPHOOK: not yet")
import { readFile, readdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

const SCRIPT = `
const { writeFileSync, renameSync } = require('node:fs');
const { spawn } = require('node:child_process');
const [dir, event, mode = 'ok'] = process.argv.slice(2);
let input = '';
process.stdin.on('data', (d) => (input += d));
process.stdin.on('end', () => {
  const name = String(process.hrtime.bigint()) + '-' + process.pid + '-' + event;
  writeFileSync(dir + '/.' + name, JSON.stringify({ event, stdin: input, envNames: Object.keys(process.env) }));
  renameSync(dir + '/.' + name, dir + '/' + name + '.json');
  if (mode.startsWith('block:') && input.includes(mode.slice(6))) {
    process.stderr.write('commands that mention ' + mode.slice(6) + ' are not allowed');
    process.exit(2);
  }
  if (mode === 'ctx')
    process.stdout.write(JSON.stringify({ hookSpecificOutput: { hookEventName: event, additionalContext: 'CTX from ' + event } }));
  if (mode === 'stop-once' && !JSON.parse(input).stop_hook_active)
    process.stdout.write(JSON.stringify({ decision: 'block', reason: 'STOPHOOK: run the tests first' }));
  if (mode === 'stop-always') process.stdout.write(JSON.stringify({ decision: 'block', reason: 'STOPHOOK: not yet' }));
  if (mode === 'fail') {
    process.stdout.write('checked nothing');
    process.stderr.write('the checker broke');
    process.exit(1);
  }
  if (mode === 'hang') {
    const child = spawn(process.execPath, ['-e', 'setInterval(() => undefined, 1000)'], { stdio: 'ignore' });
    writeFileSync(dir + '/pids-' + process.pid, JSON.stringify([process.pid, child.pid]));
    setInterval(() => undefined, 1000);
  }
});
`;

export interface HookRecorder {
  /** The `command` of a hook for `event` in `mode` (see above). */
  command(event: string, mode?: string): string;
  /** The runs saved so far, oldest first. */
  runs(): Promise<{ event: string; payload: Record<string, unknown>; envNames: string[] }[]>;
  /** The pids a `hang` hook wrote (itself and its child). */
  hungPids(): Promise<number[]>;
}

/** A recorder saving into `dir` (which must exist). */
export async function makeHookRecorder(dir: string): Promise<HookRecorder> {
  const script = join(dir, '..', `${dir.split('/').pop() ?? 'hooks'}-program.cjs`);
  await writeFile(script, SCRIPT);
  return {
    command: (event, mode = 'ok') => `'${process.execPath}' '${script}' '${dir}' ${event} ${mode}`,
    runs: async () => {
      const files = (await readdir(dir)).filter((f) => f.endsWith('.json')).sort();
      const out = [];
      for (const f of files) {
        const saved = JSON.parse(await readFile(join(dir, f), 'utf8')) as {
          event: string;
          stdin: string;
          envNames: string[];
        };
        out.push({
          event: saved.event,
          payload: JSON.parse(saved.stdin) as Record<string, unknown>,
          envNames: saved.envNames,
        });
      }
      return out;
    },
    hungPids: async () => {
      const files = (await readdir(dir)).filter((f) => f.startsWith('pids-'));
      const pids: number[] = [];
      for (const f of files) pids.push(...(JSON.parse(await readFile(join(dir, f), 'utf8')) as number[]));
      return pids;
    },
  };
}
