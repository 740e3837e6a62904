// Checks by hand that the real Codex CLI accepts rollouts (Weft's, or variants of Codex's own):
//   node scripts/codex-tools.mjs check-resume [codex] ROLLOUT… [--thread ID] [--session-index FILE]
// The rollouts are copied into a scratch Codex home (sessions/YYYY/MM/DD/ from their names; CODEX_CHECK_SCRATCH
// picks the folder), then `codex exec resume ID "RUN echo resumed-ok"` continues it against the scripted model
// and `codex app-server` reads it (`thread/read` with turns, `thread/turns/list`, `thread/list`). Prints a JSON report:
// the item kinds per turn as Codex sees them, whether the listing has it, and what the model was sent.
import { copyFileSync, mkdirSync, rmSync } from 'node:fs';
import { basename, join, resolve } from 'node:path';
import { codexAppServer, runCodex, writeCodexConfig, type CodexEnv } from './codex-cli';
import { startFixtureModel } from './codex-fixture-model';

const args = process.argv.slice(2);
const take = (flag: string): string | null => {
  const i = args.indexOf(flag);
  if (i === -1) return null;
  const value = args[i + 1] ?? null;
  args.splice(i, 2);
  return value;
};
const onlyThread = take('--thread');
const sessionIndex = take('--session-index');
const codex =
  args[0] && !args[0].endsWith('.jsonl') ? (args.shift() ?? 'codex') : (process.env['CODEX_BIN'] ?? 'codex');
const files = args.map((f) => resolve(f));
if (files.length === 0) {
  process.stderr.write('usage: check-resume [codex] ROLLOUT… [--thread ID] [--session-index FILE]\n');
  process.exit(2);
}
const scratch = resolve(process.env['CODEX_CHECK_SCRATCH'] ?? '.codex-check-scratch');
const c: CodexEnv = { codex, home: join(scratch, 'home'), work: join(scratch, 'demo') };

const NAME = /^rollout-(\d{4})-(\d{2})-(\d{2})T[\d-]+-([0-9a-f-]{36})\.jsonl$/;

function textOf(content: unknown): string {
  if (!Array.isArray(content)) return '';
  return content
    .map((p: unknown) =>
      typeof p === 'object' && p !== null && 'text' in p && typeof p.text === 'string' ? p.text : '',
    )
    .join('');
}

async function main(): Promise<void> {
  rmSync(scratch, { recursive: true, force: true });
  mkdirSync(c.work, { recursive: true });
  let last = '';
  for (const file of files) {
    const m = NAME.exec(basename(file));
    if (!m) throw new Error(`${file}: not a rollout file name (rollout-YYYY-MM-DDThh-mm-ss-<uuid>.jsonl)`);
    const dir = join(c.home, 'sessions', m[1] ?? '', m[2] ?? '', m[3] ?? '');
    mkdirSync(dir, { recursive: true });
    copyFileSync(file, join(dir, basename(file)));
    last = m[4] ?? '';
  }
  if (sessionIndex) copyFileSync(sessionIndex, join(c.home, 'session_index.jsonl'));
  const thread = onlyThread ?? last;
  const model = await startFixtureModel();
  try {
    writeCodexConfig(c, model.server.url);
    // Codex builds its per-thread item tables from the rollout when it resumes the thread: resume first.
    const resumed = await runCodex(c, [
      'exec',
      'resume',
      '--json',
      '--skip-git-repo-check',
      thread,
      'RUN echo resumed-ok',
    ]);
    const sourceKinds = ['cli', 'vscode', 'exec', 'appServer', 'unknown'];
    const [read, turnsPage, list] = await codexAppServer(c, [
      { method: 'thread/read', params: { threadId: thread, includeTurns: true } },
      {
        method: 'thread/turns/list',
        params: { threadId: thread, itemsView: 'full', sortDirection: 'asc', limit: 100 },
      },
      { method: 'thread/list', params: { sourceKinds, limit: 100 } },
    ]);
    const turns = (
      read as { thread?: { turns?: { items?: { type: string }[] }[]; name?: string | null; preview?: string } } | null
    )?.thread;
    const paged = (turnsPage as { data?: { items?: { type: string }[] }[] } | null)?.data;
    const listed = (list as { data?: { id: string; name?: string | null; preview?: string }[] } | null)?.data ?? [];
    const first = model.server.requests[0]?.body;
    const input =
      typeof first === 'object' && first !== null && 'input' in first && Array.isArray(first.input) ? first.input : [];
    const sent = input.flatMap((i: unknown) => {
      if (typeof i !== 'object' || i === null || !('type' in i)) return [];
      if (i.type === 'message' && 'role' in i && 'content' in i) {
        const t = textOf(i.content);
        return t.startsWith('<') ? [] : [`${String(i.role)}: ${t.slice(0, 80)}`];
      }
      return [String(i.type)];
    });
    const report = {
      thread,
      read:
        read && typeof read === 'object' && 'error' in read
          ? read
          : {
              name: turns?.name ?? null,
              preview: turns?.preview ?? null,
              turns: (turns?.turns ?? []).map((t) => (t.items ?? []).map((i) => i.type)),
            },
      turnsList: paged ? paged.map((t) => (t.items ?? []).map((i) => i.type)) : turnsPage,
      listed: listed.filter((t) => t.id === thread),
      resume: {
        status: resumed.status,
        stderr: resumed.stderr
          .split('\n')
          .filter((l) => /error|warn|fail/i.test(l))
          .slice(0, 10),
      },
      modelSaw: sent,
    };
    process.stdout.write(JSON.stringify(report, null, 2) + '\n');
  } finally {
    await model.close();
  }
}

await main();
