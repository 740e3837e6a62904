// Records what the real Codex CLI's app server does with each kind of Stop hook output (not part of
// `npm test`: it needs the codex binary). Run by hand:
// `CODEX_FIXTURE_SCRATCH=/some/dir node scripts/codex-tools.mjs capture-stop-hooks [codex]`, with the
// scratch folder outside /tmp. For each mode, one trusted Stop hook (a Node script: it answers as its mode
// says on the first Stop of the turn, and exits 0 silently once `stop_hook_active` is set), one turn, and
// every notification of it in order: the `hookPrompt` item of a blocked Stop, the `hook/completed` runs Codex
// counts as failed, and how the turn ends. Writes test/fixtures/codex-hooks-0.169/stop-outcomes.json, machine
// paths as /home/dev/….
// `capture-stop-hooks [codex] --rollout` makes only stop-prompt-rollout.json instead: a turn a Stop hook blocked
// once, its rollout's lines (the `hookPrompt` in Codex's own rollout form), and what `thread/read` (with
// turns) and `thread/resume` of a fresh app server give back for it.
import { spawn } from 'node:child_process';
import { mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { scrubPaths, writeCodexConfig, type CodexEnv } from './codex-cli';
import { startFixtureModel } from './codex-fixture-model';

const codex = process.argv[2] ?? process.env['CODEX_BIN'] ?? 'codex';
const scratch = resolve(process.env['CODEX_FIXTURE_SCRATCH'] ?? join(process.cwd(), '.codex-stop-scratch'));
const out = resolve(process.env['CODEX_FIXTURE_OUT'] ?? 'test/fixtures/codex-hooks-0.169');
const home = join(scratch, 'home');
const work = join(scratch, 'demo');
const hook = join(scratch, 'stop-hook.mjs');
const c: CodexEnv = { codex, home, work };

/** What the hook does on the turn's first Stop, by mode. */
const MODES: Record<string, string> = {
  'block-reason': `process.stdout.write(JSON.stringify({ decision: 'block', reason: 'STOPHOOK: run the tests first' }))`,
  'block-no-reason': `process.stdout.write(JSON.stringify({ decision: 'block' }))`,
  'exit-2': `process.stderr.write('STOPHOOK: exit 2 reason'); process.exit(2)`,
  'exit-2-silent': `process.exit(2)`,
  'exit-1': `process.stdout.write('checked nothing'); process.stderr.write('the checker broke'); process.exit(1)`,
  'not-json': `process.stdout.write('this is not json {')`,
  'continue-false': `process.stdout.write(JSON.stringify({ continue: false, stopReason: 'STOPHOOK: stop here' }))`,
  'unknown-decision': `process.stdout.write(JSON.stringify({ decision: 'maybe', reason: 'STOPHOOK: unknown' }))`,
  'json-array': `process.stdout.write('[1, 2]')`,
  context: `process.stdout.write(JSON.stringify({ hookSpecificOutput: { hookEventName: 'Stop', additionalContext: 'CTX from Stop' } }))`,
};

const HOOK = `#!/usr/bin/env node
const mode = process.argv[2];
let input = '';
process.stdin.on('data', (d) => (input += d));
process.stdin.on('end', () => {
  if (JSON.parse(input).stop_hook_active) process.exit(0);
  switch (mode) {
${Object.entries(MODES)
  .map(([m, body]) => `    case ${JSON.stringify(m)}: ${body}; break;`)
  .join('\n')}
  }
});
`;

interface Note {
  method: string;
  params: Record<string, unknown>;
}

interface AppServer {
  notes: Note[];
  waiters: (() => void)[];
  call: (method: string, params: unknown) => Promise<unknown>;
  close: () => void;
}

async function appServer(): Promise<AppServer> {
  const env = { ...process.env, CODEX_HOME: home, MOCK_API_KEY: 'mock-key', RUST_LOG: 'error', NO_COLOR: '1' };
  const child = spawn(codex, ['app-server'], { cwd: work, env, stdio: ['pipe', 'pipe', 'inherit'] });
  const lines = createInterface({ input: child.stdout });
  const pending = new Map<number, (v: unknown) => void>();
  const notes: Note[] = [];
  const waiters: (() => void)[] = [];
  lines.on('line', (line) => {
    const msg = JSON.parse(line) as {
      id?: number;
      method?: string;
      result?: unknown;
      error?: unknown;
      params?: unknown;
    };
    if (msg.method !== undefined) notes.push({ method: msg.method, params: msg.params as Record<string, unknown> });
    else if (typeof msg.id === 'number') {
      pending.get(msg.id)?.(msg.error !== undefined ? { error: msg.error } : msg.result);
      pending.delete(msg.id);
    }
    for (const w of waiters.splice(0)) w();
  });
  let id = 0;
  const call = (method: string, params: unknown): Promise<unknown> =>
    new Promise((r) => {
      id += 1;
      pending.set(id, r);
      child.stdin.write(JSON.stringify({ id, method, params }) + '\n');
    });
  await call('initialize', { clientInfo: { name: 'stop-fixture-client', title: null, version: '1' } });
  child.stdin.write(JSON.stringify({ method: 'initialized' }) + '\n');
  const close = (): void => {
    child.stdin.end();
    child.kill();
  };
  return { notes, waiters, call, close };
}

async function turnWith(mode: string): Promise<{ notes: Note[]; threadId: string }> {
  writeFileSync(
    join(home, 'hooks.json'),
    JSON.stringify({ hooks: { Stop: [{ hooks: [{ type: 'command', command: `${hook} ${mode}`, timeout: 30 }] }] } }),
  );
  const server = await appServer();
  const { notes, waiters, call } = server;
  const listed = (await call('hooks/list', { cwds: [work] })) as {
    data: { hooks: { key: string; currentHash: string }[] }[];
  };
  await call('config/batchWrite', {
    edits: (listed.data[0]?.hooks ?? []).map((h) => ({
      keyPath: `hooks.state.${JSON.stringify(h.key)}.trusted_hash`,
      value: h.currentHash,
      mergeStrategy: 'upsert',
    })),
  });
  const started = (await call('thread/start', { cwd: work })) as { thread: { id: string } };
  const from = notes.length;
  await call('turn/start', {
    threadId: started.thread.id,
    input: [{ type: 'text', text: `say ${mode}`, text_elements: [] }],
  });
  const deadline = Date.now() + 60_000;
  while (!notes.slice(from).some((n) => n.method === 'turn/completed') && Date.now() < deadline)
    await new Promise<void>((r) => {
      waiters.push(r);
      setTimeout(r, 1000);
    });
  server.close();
  const kept = notes
    .slice(from)
    .filter(
      (n) =>
        !n.method.includes('/delta') && !n.method.startsWith('account/') && n.method !== 'thread/tokenUsage/updated',
    );
  return { notes: kept, threadId: started.thread.id };
}

/** The lines of the rollout of `threadId`, long texts (instructions) cut to their first 200 characters. */
function rolloutOf(threadId: string): unknown[] {
  const files = readdirSync(join(home, 'sessions'), { recursive: true, withFileTypes: true }).filter(
    (e) => e.isFile() && e.name.endsWith(`${threadId}.jsonl`),
  );
  const file = files[0];
  if (!file) throw new Error(`no rollout of ${threadId}`);
  const cut = (_key: string, value: unknown): unknown =>
    typeof value === 'string' && value.length > 200 ? `${value.slice(0, 200)}…` : value;
  return readFileSync(join(file.parentPath, file.name), 'utf8')
    .split('\n')
    .filter((l) => l !== '')
    .map((l): unknown => JSON.parse(l, cut));
}

/** A turn blocked once by a Stop hook with a reason: its rollout, and the thread read back by a fresh server. */
async function promptRollout(): Promise<void> {
  const { threadId } = await turnWith('block-reason');
  const rollout = rolloutOf(threadId);
  const fresh = await appServer();
  try {
    const read = await fresh.call('thread/read', { threadId, includeTurns: true });
    const resume = await fresh.call('thread/resume', { threadId });
    const text = scrubPaths(JSON.stringify({ threadId, rollout, read, resume }, null, 2), c, scratch);
    writeFileSync(join(out, 'stop-prompt-rollout.json'), `${text}\n`);
    process.stderr.write(`written ${join(out, 'stop-prompt-rollout.json')}\n`);
  } finally {
    fresh.close();
  }
}

async function main(): Promise<void> {
  rmSync(scratch, { recursive: true, force: true });
  for (const dir of [home, work]) mkdirSync(dir, { recursive: true });
  writeFileSync(hook, HOOK, { mode: 0o755 });
  const model = await startFixtureModel();
  try {
    writeCodexConfig(c, model.server.url);
    if (process.argv[3] === '--rollout') {
      await promptRollout();
      return;
    }
    const result: Record<string, Note[]> = {};
    for (const mode of Object.keys(MODES)) {
      result[mode] = (await turnWith(mode)).notes;
      process.stderr.write(`${mode}: ${result[mode]?.length ?? 0} notifications\n`);
    }
    const text = scrubPaths(JSON.stringify({ modes: MODES, notifications: result }, null, 2), c, scratch);
    writeFileSync(join(out, 'stop-outcomes.json'), `${text}\n`);
    process.stderr.write(`written ${join(out, 'stop-outcomes.json')}\n`);
  } finally {
    await model.close();
  }
}

await main();
