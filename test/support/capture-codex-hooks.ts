// Makes test/fixtures/codex-hooks-0.169/ with the real Codex CLI (not part of `npm test`: it needs the codex
// binary). Run by hand: `CODEX_FIXTURE_SCRATCH=/some/dir node scripts/codex-tools.mjs capture-hooks [codex]`,
// with the scratch folder outside /tmp (Codex's sandbox refuses commands there).
// Every hook is a Node script that saves the JSON it read on stdin (and its argv) to a file; one PreToolUse
// hook refuses commands that mention BLOCKME (exit 2, reason on stderr) and one UserPromptSubmit hook
// refuses prompts that mention SECRETKEY. It records:
//   payloads.json        one stdin payload per event (SessionStart, UserPromptSubmit, PreToolUse,
//                        PostToolUse, Stop) of a `codex exec` turn that runs a command
//   blocked-command.json what the model was sent after a PreToolUse hook blocked its command, and the
//                        exec progress lines
//   blocked-prompt.json  whether a prompt a UserPromptSubmit hook blocked reached the model, and stderr
//   untrusted.json       what `codex exec` prints and runs with hooks nobody trusted
//   trust.json           `hooks/list` before and after trusting through `config/batchWrite`, and the
//                        config.toml lines Codex wrote
//   app-server.jsonl     the hook/started and hook/completed notifications of an app-server turn
// Machine paths become /home/dev/….
import { spawn } from 'node:child_process';
import { mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { runCodex, writeCodexConfig, type CodexEnv, scrubPaths } from './codex-cli';
import { startFixtureModel } from './codex-fixture-model';

const codex = process.argv[2] ?? process.env['CODEX_BIN'] ?? 'codex';
const scratch = resolve(process.env['CODEX_FIXTURE_SCRATCH'] ?? join(process.cwd(), '.codex-hooks-scratch'));
const out = resolve(process.env['CODEX_FIXTURE_OUT'] ?? 'test/fixtures/codex-hooks-0.169');
const home = join(scratch, 'home');
const work = join(scratch, 'demo');
const calls = join(scratch, 'calls');
const hook = join(scratch, 'save-stdin.mjs');
const c: CodexEnv = { codex, home, work };

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
      'let input = "";',
      'process.stdin.on("data", (d) => (input += d));',
      'process.stdin.on("end", () => {',
      '  const event = process.argv[2] ?? "unknown";',
      '  writeFileSync(`${dir}/${Date.now()}-${process.pid}-${event}.json`, JSON.stringify({ argv: process.argv.slice(2), stdin: input, env: Object.keys(process.env).sort() }));',
      '  if (event === "PreToolUse" && input.includes("BLOCKME")) { process.stderr.write("commands that mention BLOCKME are not allowed"); process.exit(2); }',
      '  if (event === "UserPromptSubmit" && input.includes("SECRETKEY")) { process.stderr.write("the prompt holds a key"); process.exit(2); }',
      '  if (event === "PreToolUse" && input.includes("FAILHOOK")) { process.stdout.write("some output"); process.stderr.write("the hook broke"); process.exit(1); }',
      '  if (event === "PreToolUse" && input.includes("HANGHOOK")) setTimeout(() => undefined, 600_000);',
      '});',
      '',
    ].join('\n'),
    { mode: 0o755 },
  );
}

function hooksToml(): string {
  // The events split between inline [hooks] tables and hooks.json, so both sources are read.
  return ['PreToolUse', 'PostToolUse']
    .map((e) =>
      [
        `[[hooks.${e}]]`,
        'matcher = "Bash"',
        `[[hooks.${e}.hooks]]`,
        'type = "command"',
        `command = "${hook} ${e}"`,
        `timeout = ${e === 'PreToolUse' ? 3 : 30}`,
        '',
      ].join('\n'),
    )
    .join('\n');
}

function hooksJson(): string {
  const hooks: Record<string, unknown> = {};
  for (const e of ['SessionStart', 'UserPromptSubmit', 'Stop'])
    hooks[e] = [{ hooks: [{ type: 'command', command: `${hook} ${e}`, timeout: 30 }] }];
  return JSON.stringify({ hooks }, null, 2);
}

function writeConfig(url: string): void {
  writeCodexConfig(c, url);
  const config = readFileSync(join(home, 'config.toml'), 'utf8');
  writeFileSync(join(home, 'config.toml'), `${config}\n${hooksToml()}`);
  writeFileSync(join(home, 'hooks.json'), hooksJson());
}

function callFiles(): string[] {
  return readdirSync(calls).sort();
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
  notifications: unknown[];
  turnDone(): Promise<void>;
  close(): void;
}

async function appServer(): Promise<Rpc> {
  const child = spawn(codex, ['app-server'], { cwd: work, env: env(), stdio: ['pipe', 'pipe', 'inherit'] });
  const lines = createInterface({ input: child.stdout });
  const pending = new Map<number, (v: unknown) => void>();
  const notifications: unknown[] = [];
  let completed: () => void = () => undefined;
  let done = new Promise<void>((r) => (completed = r));
  lines.on('line', (line) => {
    const msg = JSON.parse(line) as { id?: number; method?: string; result?: unknown; error?: unknown };
    if (msg.method !== undefined) notifications.push(msg);
    if (msg.method === 'turn/completed') completed();
    if (typeof msg.id === 'number' && msg.method === undefined) {
      pending.get(msg.id)?.(msg.error !== undefined ? { error: msg.error } : msg.result);
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
  await call('initialize', { clientInfo: { name: 'hooks-fixture-client', title: null, version: '1.2.3' } });
  child.stdin.write(JSON.stringify({ method: 'initialized' }) + '\n');
  return {
    call,
    notifications,
    turnDone: async () => {
      await done;
      done = new Promise<void>((r) => (completed = r));
    },
    close: () => {
      child.stdin.end();
      child.kill();
    },
  };
}

/** The `hook: …` progress lines of a `codex exec` run's stderr. */
function hookLines(stderr: unknown): string[] {
  return String(stderr)
    .split('\n')
    .filter((l) => l.startsWith('hook: ') || l.startsWith('warning: `--dangerously'));
}

function hookNotifications(notifications: unknown): unknown[] {
  return (notifications as { method: string; params: unknown }[])
    .filter((n) => n.method.startsWith('hook/'))
    .map((n) => ({ method: n.method, params: n.params }));
}

function saveFixtures(log: Record<string, unknown>): void {
  rmSync(out, { recursive: true, force: true });
  mkdirSync(out, { recursive: true });
  const save = (name: string, value: unknown): void =>
    writeFileSync(join(out, name), scrub(JSON.stringify(value, null, 2)) + '\n');
  const payloads = log['payloads'] as Record<string, { stdin: unknown; sawProviderKey: boolean }>;
  save('payloads.json', Object.fromEntries(Object.entries(payloads).map(([k, v]) => [k, v.stdin])));
  save('hook-environment.json', { sawProviderKey: Object.values(payloads).every((p) => p.sawProviderKey) });
  const pick = (key: string): Record<string, unknown> => log[key] as Record<string, unknown>;
  const blocked = pick('blockedCommand');
  const turns = pick('appServerTurns') as Record<string, { notifications: unknown; modelInput: unknown }>;
  save('exec-progress.json', {
    untrusted: hookLines(pick('untrusted')['stderr']),
    untrustedHooksRan: pick('untrusted')['ran'],
    bypass: hookLines(pick('bypass')['stderr']),
    blockedCommand: hookLines(blocked['stderr']),
    blockedPrompt: hookLines(pick('blockedPrompt')['stderr']),
    failingHook: hookLines(log['failingExec']),
    hangingHook: hookLines(log['hangingExec']),
    jsonHasHookEvents: /"type":"hook/.test(String(log['bypassJson'])),
  });
  save('blocked-command.json', {
    modelInput: turns['BLOCKME']?.modelInput,
    execModelInputs: blocked['modelInputs'],
  });
  save('blocked-prompt.json', {
    modelRequests: pick('blockedPrompt')['requests'],
    stdout: pick('blockedPrompt')['stdout'],
    status: pick('blockedPrompt')['status'],
  });
  const config = String(log['configAfterTrust']);
  save('trust.json', {
    listBefore: log['hooksListBefore'],
    written: log['trustWrite'],
    configState: config.slice(config.indexOf('[hooks.state.')),
    listAfterChange: log['hooksListChanged'],
    hooksRanWhenTrusted: pick('trusted')['ran'],
    hooksRanAfterChange: pick('changed')['ran'],
  });
  const appServer = [
    ...hookNotifications(log['appServer']),
    ...['BLOCKME', 'FAILHOOK', 'HANGHOOK'].flatMap((w) => hookNotifications(turns[w]?.notifications ?? [])),
  ];
  writeFileSync(join(out, 'app-server.jsonl'), appServer.map((n) => scrub(JSON.stringify(n))).join('\n') + '\n');
}

async function main(): Promise<void> {
  rmSync(scratch, { recursive: true, force: true });
  for (const dir of [home, work, calls]) mkdirSync(dir, { recursive: true });
  writeHook();
  const model = await startFixtureModel();
  const log: Record<string, unknown> = {};
  try {
    writeConfig(model.server.url);
    const exec = async (args: string[]): Promise<{ status: number | null; stdout: string; stderr: string }> => {
      const r = await runCodex(c, ['exec', '--skip-git-repo-check', ...args]);
      process.stderr.write(`codex exec ${args.join(' ')}: ${r.status}\n`);
      return r;
    };
    // 1. Nobody trusted the hooks.
    const before = callFiles().length;
    const untrusted = await exec(['RUN echo untrusted-marker']);
    log['untrusted'] = {
      ran: callFiles().length - before,
      status: untrusted.status,
      stderr: untrusted.stderr,
      stdout: untrusted.stdout,
    };
    // 2. The bypass flag: every hook runs; text progress.
    let seen = callFiles().length;
    const bypass = await exec(['--dangerously-bypass-hook-trust', 'RUN echo hook-marker']);
    const payloadFiles = callFiles().slice(seen);
    log['bypass'] = { status: bypass.status, stderr: bypass.stderr, stdout: bypass.stdout };
    const payloads: Record<string, unknown> = {};
    for (const f of payloadFiles) {
      const saved = JSON.parse(readFileSync(join(calls, f), 'utf8')) as {
        argv: string[];
        stdin: string;
        env: string[];
      };
      payloads[saved.argv[0] ?? f] = {
        argv: saved.argv,
        stdin: JSON.parse(saved.stdin) as unknown,
        sawProviderKey: saved.env.includes('MOCK_API_KEY'),
      };
    }
    log['payloads'] = payloads;
    // 3. --json progress with the bypass.
    const json = await exec(['--json', '--dangerously-bypass-hook-trust', 'RUN echo json-marker']);
    log['bypassJson'] = json.stdout;
    // 4. A blocked command: what the model is told.
    const n0 = model.server.requests.length;
    seen = callFiles().length;
    const blocked = await exec(['--dangerously-bypass-hook-trust', 'RUN echo BLOCKME']);
    const after = model.server.requests.slice(n0);
    log['blockedCommand'] = {
      status: blocked.status,
      stderr: blocked.stderr,
      stdout: blocked.stdout,
      modelInputs: after.map((r) => (r.body as { input?: unknown[] }).input?.slice(-2)),
    };
    // 5. A blocked prompt.
    const n1 = model.server.requests.length;
    const blockedPrompt = await exec(['--dangerously-bypass-hook-trust', 'tell me SECRETKEY sk-123']);
    log['blockedPrompt'] = {
      status: blockedPrompt.status,
      stderr: blockedPrompt.stderr,
      stdout: blockedPrompt.stdout,
      requests: model.server.requests.length - n1,
    };
    // 6. Trust through the app server.
    const rpc = await appServer();
    const listed = await rpc.call('hooks/list', { cwds: [work] });
    log['hooksListBefore'] = listed;
    const entries = (listed as { data: { hooks: { key: string; currentHash: string }[] }[] }).data[0]?.hooks ?? [];
    const write = await rpc.call('config/batchWrite', {
      edits: entries.map((h) => ({
        keyPath: `hooks.state.${JSON.stringify(h.key)}.trusted_hash`,
        value: h.currentHash,
        mergeStrategy: 'upsert',
      })),
    });
    log['trustWrite'] = write;
    log['hooksListAfter'] = await rpc.call('hooks/list', { cwds: [work] });
    log['configAfterTrust'] = readFileSync(join(home, 'config.toml'), 'utf8');
    const started = (await rpc.call('thread/start', { cwd: work })) as { thread: { id: string } };
    await rpc.call('turn/start', {
      threadId: started.thread.id,
      input: [{ type: 'text', text: 'RUN echo app-marker', text_elements: [] }],
    });
    await rpc.turnDone();
    log['appServer'] = rpc.notifications.splice(0);
    const turnOutputs: Record<string, unknown> = {};
    for (const word of ['BLOCKME', 'FAILHOOK', 'HANGHOOK']) {
      const before = model.server.requests.length;
      await rpc.call('turn/start', {
        threadId: started.thread.id,
        input: [{ type: 'text', text: `RUN echo ${word}`, text_elements: [] }],
      });
      await rpc.turnDone();
      turnOutputs[word] = {
        notifications: rpc.notifications
          .splice(0)
          .filter((n) =>
            /hook|item\/(started|completed)|warning|error/.test(JSON.stringify((n as { method: string }).method)),
          ),
        modelInput: model.server.requests.slice(before).map((r) => (r.body as { input?: unknown[] }).input?.slice(-1)),
      };
    }
    log['appServerTurns'] = turnOutputs;
    rpc.close();
    // 7. Trusted: exec without the flag.
    seen = callFiles().length;
    const trusted = await exec(['RUN echo trusted-marker']);
    log['trusted'] = { ran: callFiles().length - seen, stderr: trusted.stderr };
    const failing = await exec(['RUN echo FAILHOOK']);
    log['failingExec'] = failing.stderr;
    const hanging = await exec(['RUN echo HANGHOOK']);
    log['hangingExec'] = hanging.stderr;
    // 8. A changed hook after trust.
    writeFileSync(join(home, 'hooks.json'), hooksJson().replace(/"timeout": 30/g, '"timeout": 31'));
    seen = callFiles().length;
    const changed = await exec(['RUN echo changed-marker']);
    log['changed'] = { ran: callFiles().length - seen, stderr: changed.stderr, ranFiles: callFiles().slice(seen) };
    const rpc2 = await appServer();
    log['hooksListChanged'] = await rpc2.call('hooks/list', { cwds: [work] });
    rpc2.close();
    writeFileSync(join(scratch, 'log.json'), scrub(JSON.stringify(log, null, 2)) + '\n');
    saveFixtures(log);
    process.stderr.write(`fixtures written to ${out}\n`);
  } finally {
    await model.close();
  }
}

await main();
