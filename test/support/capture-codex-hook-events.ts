// Adds to test/fixtures/codex-hooks-0.169/ what the real Codex CLI does with hook output and the events
// capture-codex-hooks.ts does not reach (not part of `npm test`: it needs the codex binary). Run by hand:
// `CODEX_FIXTURE_SCRATCH=/some/dir node scripts/codex-tools.mjs capture-hook-events [codex]`, with the
// scratch folder outside /tmp. Every hook is a Node script that saves its stdin and answers as its mode says
// (`ctx`: additionalContext for its event; `stop-once`: a Stop block unless `stop_hook_active`;
// `stop-always`: a Stop block every time; `block`: exit 2). It records:
//   context.json        the model input of a turn whose SessionStart, UserPromptSubmit, PreToolUse,
//                       PostToolUse and Stop hooks all give additionalContext, and the hook lines of exec
//                       (model inputs keep the turn's items only, not Codex's instructions and environment)
//   stop-block.json     the requests and Stop payloads of a turn a Stop hook blocks once, and of one it
//                       blocks every time (how Codex bounds it)
//   mcp.json            PreToolUse / PostToolUse payloads of an MCP tool call, and what the model reads when
//                       a PreToolUse hook blocks one
//   events.json         the payloads of PermissionRequest, Interrupt, SessionEnd, PreCompact and PostCompact
//                       (the events Codex fired; `fired` lists them) and their hook/* notifications
// Machine paths become /home/dev/….
import { spawn } from 'node:child_process';
import { mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { runCodex, scrubPaths, writeCodexConfig, type CodexEnv } from './codex-cli';
import { startFixtureModel, type FixtureModel } from './codex-fixture-model';

const codex = process.argv[2] ?? process.env['CODEX_BIN'] ?? 'codex';
const scratch = resolve(process.env['CODEX_FIXTURE_SCRATCH'] ?? join(process.cwd(), '.codex-hooks-scratch'));
const out = resolve(process.env['CODEX_FIXTURE_OUT'] ?? 'test/fixtures/codex-hooks-0.169');
const home = join(scratch, 'home');
const work = join(scratch, 'demo');
const calls = join(scratch, 'calls');
const hook = join(scratch, 'hook.mjs');
const c: CodexEnv = { codex, home, work };
const require = createRequire(import.meta.url);
const everything = join(
  require.resolve('@modelcontextprotocol/server-everything/package.json'),
  '..',
  'dist',
  'index.js',
);

const HOOK = `#!/usr/bin/env node
import { writeFileSync } from 'node:fs';
const [event, mode = 'ok'] = process.argv.slice(2);
let input = '';
process.stdin.on('data', (d) => (input += d));
process.stdin.on('end', () => {
  writeFileSync(${JSON.stringify(calls)} + '/' + process.hrtime.bigint() + '-' + event + '.json', input);
  const payload = JSON.parse(input);
  if (mode === 'ctx')
    process.stdout.write(JSON.stringify({ hookSpecificOutput: { hookEventName: event, additionalContext: 'CTX from ' + event } }));
  if (mode === 'stop-once' && !payload.stop_hook_active)
    process.stdout.write(JSON.stringify({ decision: 'block', reason: 'STOPHOOK: run the tests first' }));
  if (mode === 'stop-always')
    process.stdout.write(JSON.stringify({ decision: 'block', reason: 'STOPHOOK: not yet' }));
  if (mode === 'block') { process.stderr.write('mcp calls are not allowed'); process.exit(2); }
});
`;

type Hooks = Record<string, { matcher?: string; mode?: string }[]>;

function setHooks(hooks: Hooks): void {
  const json: Record<string, unknown> = {};
  for (const [event, list] of Object.entries(hooks))
    json[event] = list.map((h) => ({
      ...(h.matcher === undefined ? {} : { matcher: h.matcher }),
      hooks: [{ type: 'command', command: `${hook} ${event} ${h.mode ?? 'ok'}`, timeout: 30 }],
    }));
  writeFileSync(join(home, 'hooks.json'), JSON.stringify({ hooks: json }, null, 2));
}

function baseConfig(url: string, extra: string): void {
  writeCodexConfig(c, url);
  const config = readFileSync(join(home, 'config.toml'), 'utf8');
  writeFileSync(join(home, 'config.toml'), `${config}\n${extra}`);
}

const MCP = [
  '[mcp_servers.everything]',
  `command = ${JSON.stringify(process.execPath)}`,
  `args = [${JSON.stringify(everything)}, "stdio"]`,
  '',
].join('\n');

/** The payloads hooks saved since `seen` (file names), oldest first. */
function payloadsSince(seen: Set<string>): Record<string, unknown>[] {
  const fresh = readdirSync(calls)
    .filter((f) => !seen.has(f))
    .sort();
  for (const f of fresh) seen.add(f);
  return fresh.map((f) => JSON.parse(readFileSync(join(calls, f), 'utf8')) as Record<string, unknown>);
}

interface InputItem {
  type?: string;
  role?: string;
  content?: { text?: string }[];
}

/**
 * Whether an input item is the turn's own (kept in fixtures), not Codex's preamble: its instructions (developer
 * messages other than hook context) and its environment context are left out.
 */
function turnItem(item: InputItem): boolean {
  if (item.type !== 'message') return true;
  const text = (item.content ?? []).map((c) => c.text ?? '').join('');
  if (item.role === 'developer') return text.startsWith('CTX');
  return !(item.role === 'user' && text.startsWith('<environment_context>'));
}

function inputs(model: FixtureModel, from: number): unknown[] {
  return model.server.requests
    .slice(from)
    .map((r) => ((r.body as { input?: InputItem[] }).input ?? []).filter(turnItem));
}

function hookLines(stderr: string): string[] {
  return stderr.split('\n').filter((l) => l.startsWith('hook: ') || l.startsWith('hook context'));
}

const env = (): NodeJS.ProcessEnv => ({
  ...process.env,
  CODEX_HOME: home,
  MOCK_API_KEY: 'mock-key',
  RUST_LOG: 'error',
  NO_COLOR: '1',
});

interface Rpc {
  call(method: string, params: unknown): Promise<unknown>;
  notifications: { method: string; params: Record<string, unknown> }[];
  waitFor(method: string, pred?: (p: Record<string, unknown>) => boolean): Promise<Record<string, unknown>>;
  close(): Promise<void>;
}

async function appServer(): Promise<Rpc> {
  const child = spawn(codex, ['app-server'], { cwd: work, env: env(), stdio: ['pipe', 'pipe', 'inherit'] });
  const lines = createInterface({ input: child.stdout });
  const pending = new Map<number, (v: unknown) => void>();
  const notifications: { method: string; params: Record<string, unknown> }[] = [];
  const waiters: (() => void)[] = [];
  lines.on('line', (line) => {
    const msg = JSON.parse(line) as {
      id?: number;
      method?: string;
      result?: unknown;
      error?: unknown;
      params?: unknown;
    };
    if (msg.method !== undefined && msg.id !== undefined) {
      // A server request (an approval): accepted.
      notifications.push({ method: msg.method, params: msg.params as Record<string, unknown> });
      child.stdin.write(JSON.stringify({ id: msg.id, result: { decision: 'accept' } }) + '\n');
    } else if (msg.method !== undefined) {
      notifications.push({ method: msg.method, params: msg.params as Record<string, unknown> });
    } else if (typeof msg.id === 'number') {
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
  await call('initialize', { clientInfo: { name: 'hooks-fixture-client', title: null, version: '1.2.3' } });
  child.stdin.write(JSON.stringify({ method: 'initialized' }) + '\n');
  /** The first `method` notification after those received so far (a server request counts). */
  const waitFor = async (method: string, pred: (p: Record<string, unknown>) => boolean = () => true) => {
    let from = notifications.length;
    for (;;) {
      const found = notifications.slice(from).find((n) => n.method === method && pred(n.params));
      if (found) return found.params;
      from = notifications.length;
      await new Promise<void>((r) => waiters.push(r));
    }
  };
  return {
    call,
    notifications,
    waitFor,
    close: () =>
      new Promise<void>((r) => {
        child.on('close', () => r());
        child.stdin.end();
      }),
  };
}

async function trustAll(rpc: Rpc): Promise<void> {
  const listed = (await rpc.call('hooks/list', { cwds: [work] })) as {
    data: { hooks: { key: string; currentHash: string }[] }[];
  };
  await rpc.call('config/batchWrite', {
    edits: (listed.data[0]?.hooks ?? []).map((h) => ({
      keyPath: `hooks.state.${JSON.stringify(h.key)}.trusted_hash`,
      value: h.currentHash,
      mergeStrategy: 'upsert',
    })),
  });
}

const text = (t: string) => [{ type: 'text', text: t, text_elements: [] }];

async function main(): Promise<void> {
  rmSync(scratch, { recursive: true, force: true });
  for (const dir of [home, work, calls]) mkdirSync(dir, { recursive: true });
  writeFileSync(hook, HOOK, { mode: 0o755 });
  const model = await startFixtureModel();
  const seen = new Set<string>();
  const log: Record<string, unknown> = {};
  const exec = async (args: string[], timeoutMs = 120_000) => {
    const r = await runCodex(
      c,
      ['exec', '--skip-git-repo-check', '--dangerously-bypass-hook-trust', ...args],
      timeoutMs,
    );
    process.stderr.write(`codex exec ${args.join(' ')}: ${r.status}\n`);
    return r;
  };
  const execCut = (args: string[], ms: number) =>
    new Promise<{ status: number | null; stdout: string; stderr: string }>((done) => {
      const all = ['exec', '--skip-git-repo-check', '--dangerously-bypass-hook-trust', ...args];
      const child = spawn(codex, all, { cwd: work, env: env(), stdio: ['ignore', 'pipe', 'pipe'], detached: true });
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
      child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
      const timer = setTimeout(() => child.pid !== undefined && process.kill(-child.pid, 'SIGKILL'), ms);
      child.on('close', (status) => {
        clearTimeout(timer);
        done({ status, stdout, stderr });
      });
    });
  try {
    baseConfig(model.server.url, MCP);
    // 1. additionalContext from every event that gives it.
    const ctxEvents = ['SessionStart', 'UserPromptSubmit', 'PreToolUse', 'PostToolUse', 'Stop'];
    setHooks(Object.fromEntries(ctxEvents.map((e) => [e, [{ mode: 'ctx' }]])));
    let n0 = model.server.requests.length;
    const ctx = await exec(['RUN echo ctx-marker']);
    log['context'] = {
      modelInputs: inputs(model, n0),
      hookLines: hookLines(ctx.stderr),
      stderr: ctx.stderr,
      payloads: payloadsSince(seen).map((p) => p['hook_event_name']),
    };
    // A second turn on the same thread: is the context still there?
    // 2. Stop blocks once, then every time.
    setHooks({ Stop: [{ mode: 'stop-once' }] });
    n0 = model.server.requests.length;
    const once = await exec(['say hello']);
    log['stopOnce'] = {
      modelInputs: inputs(model, n0),
      payloads: payloadsSince(seen),
      hookLines: hookLines(once.stderr),
      stdout: once.stdout,
    };
    setHooks({ Stop: [{ mode: 'stop-always' }] });
    n0 = model.server.requests.length;
    // Codex sets no bound of its own: the turn is cut after 30 s (the binary's whole process group).
    const always = await execCut(['say hello again'], 30_000);
    log['stopAlways'] = {
      status: always.status,
      requests: model.server.requests.length - n0,
      lastInput: inputs(model, n0).slice(-1),
      stopHookActive: payloadsSince(seen).map((p) => p['stop_hook_active']),
      hookLines: hookLines(always.stderr).slice(0, 12),
      stdout: always.stdout,
    };
    // 3. MCP tool names, and a block of an MCP call.
    setHooks({ PreToolUse: [{ matcher: 'mcp__everything__.*' }], PostToolUse: [{ matcher: 'mcp__.*' }] });
    n0 = model.server.requests.length;
    const mcp = await exec(['MCP everything echo {"message":"hi"}']);
    // A Stop hook of the turn cut above may still save its run now: only the tool events are this turn's.
    const toolEvents = (p: Record<string, unknown>) => String(p['hook_event_name']).endsWith('ToolUse');
    log['mcp'] = {
      payloads: payloadsSince(seen).filter(toolEvents),
      hookLines: hookLines(mcp.stderr),
      modelInputs: inputs(model, n0),
    };
    setHooks({ PreToolUse: [{ matcher: 'mcp__everything__echo', mode: 'block' }] });
    n0 = model.server.requests.length;
    const mcpBlocked = await exec(['MCP everything echo {"message":"blocked"}']);
    log['mcpBlocked'] = {
      payloads: payloadsSince(seen),
      hookLines: hookLines(mcpBlocked.stderr),
      modelInputs: inputs(model, n0).map((i) => (Array.isArray(i) ? i.slice(-2) : i)),
    };
    // 4. SessionEnd from exec.
    const lifecycle = ['SessionStart', 'SessionEnd', 'Interrupt', 'PermissionRequest', 'PreCompact', 'PostCompact'];
    setHooks(Object.fromEntries(lifecycle.map((e) => [e, [{}]])));
    await exec(['say bye']);
    log['execLifecycle'] = payloadsSince(seen);
    // 5. The app server: PermissionRequest (approval asked), Interrupt, compaction, SessionEnd.
    writeFileSync(
      join(home, 'config.toml'),
      readFileSync(join(home, 'config.toml'), 'utf8').replace(
        'approval_policy = "never"',
        'approval_policy = "on-request"',
      ),
    );
    const rpc = await appServer();
    await trustAll(rpc);
    const started = (await rpc.call('thread/start', { cwd: work })) as { thread: { id: string } };
    const threadId = started.thread.id;
    let done = rpc.waitFor('turn/completed');
    await rpc.call('turn/start', { threadId, input: text('RUNESC touch perm-marker') });
    await done;
    const permission = payloadsSince(seen);
    done = rpc.waitFor('turn/completed');
    await rpc.call('turn/start', { threadId, input: text('PATCH ../outside.txt hello') });
    await done;
    const patchPermission = payloadsSince(seen);
    const running = rpc.waitFor('item/started', (p) => (p['item'] as { type?: string }).type === 'commandExecution');
    done = rpc.waitFor('turn/completed');
    const turn = (await rpc.call('turn/start', { threadId, input: text('RUN sleep 30') })) as { turn: { id: string } };
    await running;
    await rpc.call('turn/interrupt', { threadId, turnId: turn.turn.id });
    const interrupted = await done;
    const interrupt = payloadsSince(seen);
    done = rpc.waitFor('turn/completed');
    const compact = await rpc.call('thread/compact/start', { threadId });
    await done;
    const compacted = payloadsSince(seen);
    const unsubscribed = await rpc.call('thread/unsubscribe', { threadId });
    const afterUnsubscribe = payloadsSince(seen);
    await rpc.close();
    const afterClose = payloadsSince(seen);
    log['appServer'] = {
      permission,
      patchPermission,
      interrupt,
      interruptedStatus: (interrupted['turn'] as { status?: unknown }).status,
      compact,
      compacted,
      unsubscribed,
      afterUnsubscribe,
      afterClose,
      notifications: rpc.notifications.filter(
        (n) => n.method.startsWith('hook/') || n.method.endsWith('requestApproval'),
      ),
    };
    writeFileSync(join(scratch, 'events-log.json'), scrub(JSON.stringify(log, null, 2)) + '\n');
    saveFixtures(log);
    process.stderr.write(`fixtures written to ${out}\n`);
  } finally {
    await model.close();
  }
}

function scrub(t: string): string {
  return scrubPaths(t, c, scratch);
}

function saveFixtures(log: Record<string, unknown>): void {
  const save = (name: string, value: unknown): void =>
    writeFileSync(join(out, name), scrub(JSON.stringify(value, null, 2)) + '\n');
  const pick = (key: string): Record<string, unknown> => log[key] as Record<string, unknown>;
  save('context.json', { ...pick('context'), stderr: undefined });
  save('stop-block.json', { once: pick('stopOnce'), always: pick('stopAlways') });
  save('mcp.json', { allowed: pick('mcp'), blocked: pick('mcpBlocked') });
  const app = pick('appServer');
  const all = [
    ...(log['execLifecycle'] as Record<string, unknown>[]),
    ...['permission', 'patchPermission', 'interrupt', 'compacted', 'afterUnsubscribe', 'afterClose'].flatMap(
      (k) => app[k] as Record<string, unknown>[],
    ),
  ];
  save('events.json', {
    fired: {
      exec: (log['execLifecycle'] as Record<string, unknown>[]).map((p) => p['hook_event_name']),
      appServer: Object.fromEntries(
        ['permission', 'patchPermission', 'interrupt', 'compacted', 'afterUnsubscribe', 'afterClose'].map((k) => [
          k,
          (app[k] as Record<string, unknown>[]).map((p) => p['hook_event_name']),
        ]),
      ),
    },
    payloads: Object.fromEntries(
      all.map((p) => [
        p['hook_event_name'] === 'PermissionRequest'
          ? `PermissionRequest ${String((p as { tool_name?: unknown }).tool_name)}`
          : String(p['hook_event_name']),
        p,
      ]),
    ),
    interruptedStatus: app['interruptedStatus'],
    appServerNotifications: app['notifications'],
  });
}

await main();
