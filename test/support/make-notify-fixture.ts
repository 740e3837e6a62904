// Makes test/fixtures/codex-notify-0.169/ with the real Codex CLI (not part of `npm test`: it needs the codex
// binary). Run by hand: `CODEX_FIXTURE_SCRATCH=/some/dir node scripts/codex-tools.mjs make-notify [codex]`.
// Codex's `notify = [argv…]` program is a Node script that saves the argv it was called with (and the names,
// never the values, of the environment variables it saw); the runs are `codex exec` (an answer, then a
// command and an answer), a turn that fails, and a turn through `codex app-server` (whose client name
// Codex passes on). Machine paths are replaced by /home/dev/….
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { runCodex, writeCodexConfig, type CodexEnv, scrubPaths } from './codex-cli';
import { startFixtureModel } from './codex-fixture-model';

const codex = process.argv[2] ?? process.env['CODEX_BIN'] ?? 'codex';
const scratch = resolve(process.env['CODEX_FIXTURE_SCRATCH'] ?? join(process.cwd(), '.codex-fixture-scratch'));
const out = resolve(process.env['CODEX_FIXTURE_OUT'] ?? 'test/fixtures/codex-notify-0.169');
const home = join(scratch, 'home');
const work = join(scratch, 'demo');
const calls = join(scratch, 'calls');
const hook = join(scratch, 'save-argv.mjs');
const c: CodexEnv = { codex, home, work };

/** A variable that looks like a secret, set for every run: does Codex hand it to the program? */
const PROBE_SECRET = 'WEFT_PROBE_SECRET_TOKEN';

function scrub(text: string): string {
  return scrubPaths(text, c, scratch);
}

function writeHook(): void {
  writeFileSync(
    hook,
    [
      '#!/usr/bin/env node',
      "import { writeFileSync } from 'node:fs';",
      `const dir = ${JSON.stringify(calls)};`,
      'const name = `${Date.now()}-${process.pid}.json`;',
      'writeFileSync(`${dir}/${name}`, JSON.stringify({ argv: process.argv.slice(2), env: Object.keys(process.env).sort() }));',
      '',
    ].join('\n'),
    { mode: 0o755 },
  );
}

function withNotify(url: string): void {
  writeCodexConfig(c, url);
  const config = readFileSync(join(home, 'config.toml'), 'utf8');
  writeFileSync(join(home, 'config.toml'), `notify = [${JSON.stringify(hook)}, "first-arg"]\n${config}`);
}

/** The calls saved since `seen`, oldest first, once `count` of them are there (polled: a program ends on its own). */
async function callsAfter(seen: number, count: number): Promise<unknown[]> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const files = readdirSync(calls).sort();
    if (files.length >= seen + count)
      return files.slice(seen).map((f) => JSON.parse(readFileSync(join(calls, f), 'utf8')) as unknown);
    if (Date.now() > deadline) throw new Error(`only ${files.length - seen} notify call(s) arrived, wanted ${count}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

// Every codex run inherits it (runCodex passes this process's environment on).
process.env[PROBE_SECRET] = 'probe';
const env = (): NodeJS.ProcessEnv => ({
  ...process.env,
  CODEX_HOME: home,
  MOCK_API_KEY: 'mock-key',
  RUST_LOG: 'error',
  NO_COLOR: '1',
});

/** What a saved call keeps: the argv, and whether the probe secret and the provider's key reached it. */
function kept(call: unknown): unknown {
  const { argv, env: names } = call as { argv: string[]; env: string[] };
  return { argv, sawProbeSecret: names.includes(PROBE_SECRET), sawProviderKey: names.includes('MOCK_API_KEY') };
}

/** One turn through `codex app-server`, from initialize to turn/completed. */
async function appServerTurn(prompt: string): Promise<void> {
  const child = spawn(codex, ['app-server'], { cwd: work, env: env(), stdio: ['pipe', 'pipe', 'inherit'] });
  const lines = createInterface({ input: child.stdout });
  const pending = new Map<number, (v: unknown) => void>();
  let completed: () => void = () => undefined;
  const turnDone = new Promise<void>((r) => (completed = r));
  lines.on('line', (line) => {
    const msg = JSON.parse(line) as { id?: number; method?: string; result?: unknown; error?: unknown };
    if (msg.method === 'turn/completed') completed();
    if (typeof msg.id === 'number' && msg.method === undefined) {
      pending.get(msg.id)?.(msg.error ?? msg.result);
      pending.delete(msg.id);
    }
  });
  let id = 0;
  const call = (method: string, params: unknown): Promise<unknown> =>
    new Promise((r) => {
      id += 1;
      pending.set(id, r);
      child.stdin.write(JSON.stringify({ id, method, params }) + '\n');
    });
  await call('initialize', { clientInfo: { name: 'notify-fixture-client', title: null, version: '1.2.3' } });
  child.stdin.write(JSON.stringify({ method: 'initialized' }) + '\n');
  const started = (await call('thread/start', { cwd: work })) as { thread: { id: string } };
  await call('turn/start', { threadId: started.thread.id, input: [{ type: 'text', text: prompt, text_elements: [] }] });
  await turnDone;
  child.stdin.end();
  child.kill();
}

async function main(): Promise<void> {
  rmSync(scratch, { recursive: true, force: true });
  for (const dir of [home, work, calls]) mkdirSync(dir, { recursive: true });
  writeHook();
  const model = await startFixtureModel();
  try {
    withNotify(model.server.url);
    const run = async (args: string[]): Promise<void> => {
      const r = await runCodex(c, ['exec', '--json', '--skip-git-repo-check', ...args]);
      process.stderr.write(`codex exec ${args.join(' ')}: ${r.status}\n`);
    };
    await run(['say hello to the notify hook']);
    const answer = await callsAfter(0, 1);
    await run(['RUN echo notify-marker']);
    const command = await callsAfter(1, 1);
    // A turn that fails (the model answers 400): is the program called?
    await run(['FAIL the model refuses']);
    await new Promise((r) => setTimeout(r, 3000));
    const failedCalls = readdirSync(calls).length - 2;
    await appServerTurn('hello from the app server');
    const appServer = await callsAfter(2 + failedCalls, 1);
    rmSync(out, { recursive: true, force: true });
    mkdirSync(out, { recursive: true });
    const save = (name: string, value: unknown): void =>
      writeFileSync(join(out, name), scrub(JSON.stringify(value, null, 2)) + '\n');
    save('exec-answer.json', kept(answer[0]));
    save('exec-command.json', kept(command[0]));
    save('app-server.json', kept(appServer[0]));
    save('failed-turn.json', { notifyCalls: failedCalls });
    process.stderr.write(`fixtures written to ${out}; ${existsSync(out) ? 'ok' : 'missing'}\n`);
  } finally {
    await model.close();
  }
}

await main();
