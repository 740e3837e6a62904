// Makes test/fixtures/codex-agents-0.169/ with the real Codex CLI (not part of `npm test`: it needs the codex
// binary). Run by hand: `node scripts/codex-tools.mjs capture-agents [path/to/codex]` (default: $CODEX_BIN),
// with CODEX_FIXTURE_SCRATCH naming a scratch folder outside /tmp (Codex's sandbox refuses commands there).
// It records what Codex 0.169 does with its sub-agent tools (`multi_agent_v1`) against a scripted model:
//   tools.json          the `multi_agent_v1` namespace of the first request, with the default config and with
//                       one agent role configured (`[agents.reviewer]`)
//   spawn-wait.jsonl    the app-server messages of a turn whose model spawns a sub-agent and waits for it
//   calls.json          every collab call of a longer script (send_input, wait_agent, close_agent,
//                       resume_agent, a spawn over `agents.max_threads = 1`, a wait on an unknown id): the
//                       call, the output the model got and the `collabAgentToolCall` item it became
//   rollout-items.json  the `CollabAgentToolCall` items of that script's parent rollout (`item_completed`)
//   child-approval.jsonl  the app-server messages of a sub-agent asking to run a command (on-request)
//   child-thread.json   the child as `thread/read` and `thread/list` show it, and its rollout's session_meta
//   exec-spawn.jsonl    `codex exec --experimental-json` of the spawn-and-wait turn
// and in test/fixtures/codex-hooks-0.169/: subagent-payloads.json, the SubagentStart / SubagentStop hook
// payloads of that turn under `codex exec`, and subagent-turns.json, the turn ids the parent's and the child's
// rollouts hold (what the payloads' `turn_id` is compared with); subagent-hook-runs.json, the same turn through
// `codex app-server` (hooks trusted): each thread's turn/started and the hook/started / hook/completed
// notifications (which thread and turn tell the runs). `capture-agents [codex] --hooks-only` makes only these.
// Machine paths become /home/dev/….
import { spawn } from 'node:child_process';
import { appendFileSync, mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { codexExec, runCodex, writeCodexConfig, type CodexEnv } from './codex-cli';
import { startMockResponsesServer, type MockStep, type RecordedRequest } from './mock-responses-server';
import {
  evAssistantMessage,
  evCompleted,
  evCreated,
  evFunctionCall,
  evNamespacedCall,
  evOutputTextDelta,
  type SseEvent,
} from './sse';

const codex = process.argv[2] ?? process.env['CODEX_BIN'] ?? 'codex';
const scratch = resolve(process.env['CODEX_FIXTURE_SCRATCH'] ?? join(process.cwd(), '.codex-agents-scratch'));
const out = resolve(process.env['CODEX_FIXTURE_OUT'] ?? 'test/fixtures/codex-agents-0.169');
const NAMESPACE = 'multi_agent_v1';

type Json = Record<string, unknown>;

function isJson(v: unknown): v is Json {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function scrub(text: string): string {
  return text.split(scratch).join('/home/dev').split(`${homedir()}/`).join('/home/dev/');
}

function inputOf(r: RecordedRequest): Json[] {
  const body = r.body;
  return isJson(body) && Array.isArray(body['input']) ? body['input'].filter(isJson) : [];
}

function textOf(item: Json): string {
  const content = item['content'];
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content.map((c: unknown) => (isJson(c) && typeof c['text'] === 'string' ? c['text'] : '')).join('');
}

/** The model: a parent's first message is `DELEGATE <task>`; the child's is the task. */
function scriptedModel(script: 'spawn-wait' | 'calls') {
  let n = 0;
  return (r: RecordedRequest): MockStep => {
    n += 1;
    const id = `resp_${n}`;
    const input = inputOf(r);
    const reply = (events: (SseEvent | readonly SseEvent[])[]): MockStep => ({
      kind: 'sse',
      events: [evCreated(id), ...events, evCompleted(id, { input_tokens: 100, output_tokens: 10 })],
    });
    const message = (text: string) => [evOutputTextDelta(text, `msg_${n}`), evAssistantMessage(text, `msg_${n}`)];
    const call = (name: string, args: object) => reply([evNamespacedCall(`call_${name}_${n}`, NAMESPACE, name, args)]);
    const users = input.filter((i) => i['type'] === 'message' && i['role'] === 'user').map(textOf);
    const parent = users.find((u) => u.startsWith('DELEGATE ')) ?? null;
    const outputs = input.filter((i) => i['type'] === 'function_call_output');
    if (parent === null) {
      // A child: runs `RUN <cmd>` as a command (asking to leave the sandbox), else answers.
      const words = users[users.length - 1] ?? '';
      const last = input[input.length - 1];
      if (last?.['type'] === 'function_call_output') return reply(message(`DONE: ${String(last['output'])}`));
      if (words.startsWith('RUN '))
        return reply([
          evFunctionCall(`call_run_${n}`, 'exec_command', {
            cmd: words.slice(4),
            sandbox_permissions: 'require_escalated',
            justification: 'the task needs it',
          }),
        ]);
      return reply(message(`ACK: ${words}`));
    }
    const task = parent.slice('DELEGATE '.length);
    const spawned = outputs.find((o) => typeof o['output'] === 'string' && o['output'].includes('"agent_id"'));
    const agent = spawned ? String((JSON.parse(String(spawned['output'])) as Json)['agent_id']) : '';
    if (outputs.length === 0) return call('spawn_agent', { message: task });
    const steps: [string, object][] =
      script === 'spawn-wait'
        ? [['wait_agent', { targets: [agent], timeout_ms: 60000 }]]
        : [
            ['send_input', { target: agent, message: 'more please' }],
            ['wait_agent', { targets: [agent], timeout_ms: 60000 }],
            ['close_agent', { target: agent }],
            ['resume_agent', { id: agent }],
            ['send_input', { target: agent, message: 'again', interrupt: true }],
            ['wait_agent', { targets: [agent], timeout_ms: 60000 }],
            ['spawn_agent', { message: 'a second child' }],
            ['wait_agent', { targets: ['01a225ee-0000-7000-8000-000000000000'], timeout_ms: 10000 }],
            ['close_agent', { target: agent }],
            ['close_agent', { target: agent }],
          ];
    const next = steps[outputs.length - 1];
    return next ? call(next[0], next[1]) : reply(message('FINISHED'));
  };
}

interface Home {
  c: CodexEnv;
  model: Awaited<ReturnType<typeof startMockResponsesServer>>;
}

async function home(
  name: string,
  script: 'spawn-wait' | 'calls',
  extra: { config?: string; approval?: string } = {},
): Promise<Home> {
  const c: CodexEnv = { codex, home: join(scratch, name, 'home'), work: join(scratch, name, 'demo') };
  mkdirSync(c.home, { recursive: true });
  mkdirSync(c.work, { recursive: true });
  const model = await startMockResponsesServer();
  const answer = scriptedModel(script);
  for (let i = 0; i < 60; i++) model.enqueue(answer);
  writeCodexConfig(c, model.url);
  const file = join(c.home, 'config.toml');
  if (extra.approval)
    writeFileSync(
      file,
      readFileSync(file, 'utf8').replace('approval_policy = "never"', `approval_policy = "${extra.approval}"`),
    );
  if (extra.config) appendFileSync(file, extra.config);
  return { c, model };
}

/** The multi_agent_v1 namespace of the first request of a `codex exec`. */
async function toolsOf(name: string, config?: string): Promise<unknown> {
  const { c, model } = await home(name, 'spawn-wait', { config });
  try {
    await codexExec(c, ['hello']);
    const body = model.requests[0]?.body;
    const tools = isJson(body) && Array.isArray(body['tools']) ? body['tools'] : [];
    const ns = tools.find((t: unknown) => isJson(t) && t['name'] === NAMESPACE);
    if (!ns) throw new Error(`codex sent no ${NAMESPACE} namespace`);
    return ns;
  } finally {
    await model.close();
  }
}

interface AppServerRun {
  messages: Json[];
  requests: readonly RecordedRequest[];
  parentId: string;
  childIds: string[];
  extra: Json;
}

/** One turn through `codex app-server` (approvals accepted), then reads of the children. */
async function appServerTurn(h: Home, prompt: string, trustHooks = false): Promise<AppServerRun> {
  const env = { ...process.env, CODEX_HOME: h.c.home, MOCK_API_KEY: 'mock-key', RUST_LOG: 'error', NO_COLOR: '1' };
  const child = spawn(h.c.codex, ['app-server'], { cwd: h.c.work, env, stdio: ['pipe', 'pipe', 'inherit'] });
  const messages: Json[] = [];
  const pending = new Map<number, (m: Json) => void>();
  const waiters: { test: (m: Json) => boolean; done: () => void }[] = [];
  createInterface({ input: child.stdout }).on('line', (line) => {
    const m: unknown = JSON.parse(line);
    if (!isJson(m)) return;
    messages.push(m);
    if ('id' in m && 'method' in m)
      child.stdin.write(JSON.stringify({ id: m['id'], result: { decision: 'accept' } }) + '\n');
    else if (typeof m['id'] === 'number') {
      pending.get(m['id'])?.(m);
      pending.delete(m['id']);
    }
    for (const w of [...waiters]) {
      if (!w.test(m)) continue;
      waiters.splice(waiters.indexOf(w), 1);
      w.done();
    }
  });
  let id = 0;
  const call = (method: string, params: unknown): Promise<Json> =>
    new Promise((done) => {
      id += 1;
      pending.set(id, done);
      const m = { id, method, params };
      messages.push({ sent: m });
      child.stdin.write(JSON.stringify(m) + '\n');
    });
  const resultOf = (m: Json): Json => (isJson(m['result']) ? m['result'] : {});
  try {
    await call('initialize', { clientInfo: { name: 'weft-fixtures', title: null, version: '0' }, capabilities: null });
    child.stdin.write(JSON.stringify({ method: 'initialized' }) + '\n');
    if (trustHooks) {
      const listed = resultOf(await call('hooks/list', { cwds: [h.c.work] }));
      const data = Array.isArray(listed['data']) ? listed['data'].filter(isJson) : [];
      const hooks = data.flatMap((d) => (Array.isArray(d['hooks']) ? d['hooks'].filter(isJson) : []));
      await call('config/batchWrite', {
        edits: hooks.map((hook) => ({
          keyPath: `hooks.state.${JSON.stringify(hook['key'])}.trusted_hash`,
          value: hook['currentHash'],
          mergeStrategy: 'upsert',
        })),
      });
    }
    const started = resultOf(await call('thread/start', { cwd: h.c.work }));
    const parentId = String((started['thread'] as Json)['id']);
    const done = new Promise<void>((resolveDone) =>
      waiters.push({
        test: (m) => m['method'] === 'turn/completed' && (m['params'] as Json)['threadId'] === parentId,
        done: resolveDone,
      }),
    );
    await call('turn/start', { threadId: parentId, input: [{ type: 'text', text: prompt, text_elements: [] }] });
    await done;
    const childIds = [
      ...new Set(
        messages
          .filter((m) => m['method'] === 'turn/started' && (m['params'] as Json)['threadId'] !== parentId)
          .map((m) => String((m['params'] as Json)['threadId'])),
      ),
    ];
    const firstChild = childIds[0];
    const extra: Json = {};
    if (firstChild !== undefined) {
      extra['read'] = resultOf(await call('thread/read', { threadId: firstChild, includeTurns: true }));
      extra['list'] = resultOf(await call('thread/list', { sourceKinds: ['subAgentThreadSpawn'] }));
      extra['loaded'] = resultOf(await call('thread/loaded/list', {}));
    }
    return { messages, requests: h.model.requests, parentId, childIds, extra };
  } finally {
    child.stdin.end();
    child.kill();
    await h.model.close();
  }
}

function rolloutLines(h: Home, threadId: string): unknown[] {
  const files = readdirSync(join(h.c.home, 'sessions'), { recursive: true, withFileTypes: true }).filter(
    (e) => e.isFile() && e.name.endsWith(`${threadId}.jsonl`),
  );
  const file = files[0];
  if (!file) throw new Error(`no rollout of ${threadId}`);
  return readFileSync(join(file.parentPath, file.name), 'utf8')
    .split('\n')
    .filter((l) => l !== '')
    .map((l): unknown => JSON.parse(l));
}

/** The ids of the turns a rollout holds (its `turn_context` lines), in order. */
function turnIdsOf(h: Home, threadId: string): string[] {
  return rolloutLines(h, threadId).flatMap((line) => {
    const payload = isJson(line) && isJson(line['payload']) ? line['payload'] : {};
    return isJson(line) && line['type'] === 'turn_context' && typeof payload['turn_id'] === 'string'
      ? [payload['turn_id']]
      : [];
  });
}

function collabRolloutItems(h: Home, threadId: string): unknown[] {
  return rolloutLines(h, threadId).flatMap((line) => {
    const payload = isJson(line) && isJson(line['payload']) ? line['payload'] : {};
    const item = payload['type'] === 'item_completed' && isJson(payload['item']) ? payload['item'] : null;
    return item?.['type'] === 'CollabAgentToolCall' ? [item] : [];
  });
}

function sessionMetaOf(h: Home, threadId: string): unknown {
  const line = rolloutLines(h, threadId)[0];
  if (!isJson(line) || !isJson(line['payload'])) return null;
  const { base_instructions: _instructions, ...payload } = line['payload'];
  return payload;
}

function jsonl(messages: readonly Json[]): string {
  return messages.map((m) => JSON.stringify(m)).join('\n') + '\n';
}

/** Each collab call of the parent's last request with its output, and the item it became. */
function collabCalls(run: AppServerRun): Json[] {
  const last = [...run.requests].reverse().find((r) => inputOf(r).some((i) => textOf(i).startsWith('DELEGATE ')));
  const input = last ? inputOf(last) : [];
  const items = run.messages
    .filter((m) => m['method'] === 'item/completed')
    .map((m) => (m['params'] as Json)['item'] as Json)
    .filter((item) => item['type'] === 'collabAgentToolCall');
  return input
    .filter((i) => i['type'] === 'function_call' && i['namespace'] === NAMESPACE)
    .map((c) => ({
      name: c['name'],
      arguments: JSON.parse(String(c['arguments'])) as unknown,
      output: input.find((o) => o['type'] === 'function_call_output' && o['call_id'] === c['call_id'])?.['output'],
      item: items.find((item) => item['id'] === c['call_id']) ?? null,
    }));
}

async function main(): Promise<void> {
  rmSync(scratch, { recursive: true, force: true });
  mkdirSync(out, { recursive: true });
  if (process.argv[3] === '--hooks-only') {
    await subagentHookPayloads();
    return;
  }
  const write = (name: string, text: string): void => writeFileSync(join(out, name), scrub(text));
  const tools = {
    default: await toolsOf('tools'),
    withRole: await toolsOf('tools-role', '\n[agents.reviewer]\ndescription = "Reviews a change"\n'),
  };
  write('tools.json', JSON.stringify(tools, null, 2) + '\n');

  const spawnHome = await home('spawn', 'spawn-wait');
  const spawnRun = await appServerTurn(spawnHome, 'DELEGATE say hi from the child');
  write('spawn-wait.jsonl', jsonl(spawnRun.messages));
  const child = spawnRun.childIds[0] ?? '';
  write(
    'child-thread.json',
    JSON.stringify(
      { parentId: spawnRun.parentId, childId: child, ...spawnRun.extra, sessionMeta: sessionMetaOf(spawnHome, child) },
      null,
      2,
    ) + '\n',
  );

  const callsHome = await home('calls', 'calls', { config: '\n[agents]\nmax_threads = 1\n' });
  const callsRun = await appServerTurn(callsHome, 'DELEGATE first child');
  write('calls.json', JSON.stringify(collabCalls(callsRun), null, 2) + '\n');
  write('rollout-items.json', JSON.stringify(collabRolloutItems(callsHome, callsRun.parentId), null, 2) + '\n');

  const approvalHome = await home('approval', 'spawn-wait', { approval: 'on-request' });
  const approvalRun = await appServerTurn(approvalHome, 'DELEGATE RUN touch made-by-child.txt');
  write('child-approval.jsonl', jsonl(approvalRun.messages));
  const execHome = await home('exec', 'spawn-wait');
  try {
    const run = await runCodex(execHome.c, [
      'exec',
      '--experimental-json',
      '--skip-git-repo-check',
      'DELEGATE say hi from the child',
    ]);
    write('exec-spawn.jsonl', run.stdout);
  } finally {
    await execHome.model.close();
  }
  await subagentHookPayloads();
  process.stderr.write(`fixtures written to ${out}\n`);
}

/**
 * The SubagentStart / SubagentStop payloads of `codex exec` spawning one sub-agent and waiting for it,
 * into test/fixtures/codex-hooks-0.169/subagent-payloads.json.
 */
async function subagentHookPayloads(): Promise<void> {
  const h = await home('subhooks', 'spawn-wait');
  const calls = join(scratch, 'subhooks', 'calls');
  mkdirSync(calls, { recursive: true });
  const hook = join(scratch, 'subhooks', 'save.cjs');
  writeFileSync(
    hook,
    `let s='';process.stdin.on('data',d=>s+=d);process.stdin.on('end',()=>{require('fs').writeFileSync(${JSON.stringify(calls)}+'/'+process.hrtime.bigint()+'.json',s)});`,
  );
  const cmd = `${JSON.stringify(process.execPath)} ${JSON.stringify(hook)}`;
  const entry = [{ hooks: [{ type: 'command', command: cmd, timeout: 30 }] }];
  writeFileSync(join(h.c.home, 'hooks.json'), JSON.stringify({ hooks: { SubagentStart: entry, SubagentStop: entry } }));
  try {
    const run = await runCodex(h.c, [
      'exec',
      '--skip-git-repo-check',
      '--dangerously-bypass-hook-trust',
      'DELEGATE say hi from the child',
    ]);
    process.stderr.write(
      `exit ${run.status}\n${run.stderr
        .split('\n')
        .filter((l) => l.startsWith('hook'))
        .join('\n')}\n`,
    );
    const payloads = readdirSync(calls)
      .sort()
      .map((f) => JSON.parse(readFileSync(join(calls, f), 'utf8')) as unknown);
    const dir = join(out, '..', 'codex-hooks-0.169');
    writeFileSync(join(dir, 'subagent-payloads.json'), scrub(JSON.stringify(payloads, null, 2)) + '\n');
    const first = payloads.find(isJson);
    const parent = String(first?.['session_id']);
    const child = String(first?.['agent_id']);
    const turns = {
      parent: { threadId: parent, turnIds: turnIdsOf(h, parent) },
      child: { threadId: child, turnIds: turnIdsOf(h, child) },
    };
    writeFileSync(join(dir, 'subagent-turns.json'), JSON.stringify(turns, null, 2) + '\n');
  } finally {
    await h.model.close();
  }
  const app = await home('subhooks-app', 'spawn-wait');
  writeFileSync(
    join(app.c.home, 'hooks.json'),
    JSON.stringify({ hooks: { SubagentStart: entry, SubagentStop: entry } }),
  );
  const run = await appServerTurn(app, 'DELEGATE say hi from the child', true);
  const notes = run.messages.filter(
    (m) => m['method'] === 'turn/started' || m['method'] === 'hook/started' || m['method'] === 'hook/completed',
  );
  const file = join(out, '..', 'codex-hooks-0.169', 'subagent-hook-runs.json');
  writeFileSync(file, scrub(JSON.stringify({ parentId: run.parentId, notifications: notes }, null, 2)) + '\n');
}

await main();
