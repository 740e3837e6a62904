// `weft threads`: list, read, rename, archive and reindex saved threads, and import Codex's.
import { parseArgs } from 'node:util';
import { resolve } from 'node:path';
import { assertNever, threadTitle, type ThreadItem, type Turn } from '../../src-preload/protocol';
import { resolveWeftHome } from '../config/home';
import { StoreError, ThreadStore } from '../store';
import { errorMessage } from '../util/errors';
import { revertThread } from './threads-revert';

const USAGE = `Usage: weft threads <command> [options]

Commands:
  list [--cwd DIR] [--archived] [--search TEXT] [--sort created|updated] [--limit N] [--cursor C] [--json]
                             Newest threads first (25 by default, at most 100); [pinned] marks
                             the threads pinned in the app
  read ID [--json]           A thread with its turns
  rename ID NAME             Set a thread's name ("" clears it)
  archive ID                 Move a thread to archived_sessions/ (nothing is deleted)
  unarchive ID               Move it back
  revert ID --before TURN [--files] [--force]
                             Drop that turn and every later one; --files puts the files back as they
                             were before it (files changed since by someone else stop it; --force
                             overwrites them after saving them)
  reindex                    Rebuild the thread index from the rollout files
  import-codex [CODEX_HOME]  List Codex's threads too (default ~/.codex); resuming one continues it in Weft

Threads live in WEFT_HOME (default ~/.weft): sessions/ holds one JSONL rollout per thread.
`;

export interface ThreadsCommandIo {
  stdout: { write(text: string): unknown };
  stderr: { write(text: string): unknown };
  env: NodeJS.ProcessEnv;
}

const defaultIo = (): ThreadsCommandIo => ({ stdout: process.stdout, stderr: process.stderr, env: process.env });

class UsageError extends Error {}

function oneLine(text: string, max: number): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}

function when(unixSeconds: number | null): string {
  if (unixSeconds === null) return '-';
  const d = new Date(unixSeconds * 1000);
  const pad = (n: number): string => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())} ${pad(d.getHours())}:${pad(d.getMinutes())}`;
}

function indent(text: string, prefix = '    '): string {
  return text
    .replace(/\n+$/, '')
    .split('\n')
    .map((l) => prefix + l)
    .join('\n');
}

function renderItem(item: ThreadItem): string {
  switch (item.type) {
    case 'userMessage':
      return `› ${item.content.map((c) => (c.type === 'text' ? c.text : c.type === 'image' ? '[image]' : `[image ${c.path}]`)).join(' ')}`;
    case 'agentMessage':
      return `• ${item.text}`;
    case 'reasoning':
      return item.summary.length > 0 ? `  (thinking) ${item.summary.join(' ')}` : '  (thinking)';
    case 'plan':
      return `Plan:\n${indent(item.text)}`;
    case 'commandExecution': {
      const exit = item.exitCode === null ? item.status : `exit ${item.exitCode}`;
      const out = item.aggregatedOutput ? `\n${indent(item.aggregatedOutput)}` : '';
      return `$ ${item.command}  (${exit})${out}`;
    }
    case 'fileChange':
      return `Changed (${item.status}):\n${item.changes.map((c) => `    ${c.kind.type} ${c.path}`).join('\n')}`;
    case 'mcpToolCall':
      return `Tool ${item.server}.${item.tool} (${item.status})`;
    case 'collabAgentToolCall': {
      const agents = item.receiverThreadIds.join(', ') || '-';
      const prompt = item.prompt === null ? '' : `: ${oneLine(item.prompt, 200)}`;
      return `Sub-agent ${item.tool} ${agents} (${item.status})${prompt}`;
    }
    case 'webSearch':
      return `Searched the web: ${item.query}`;
    case 'imageView':
      return `Viewed ${item.path}`;
    case 'contextCompaction':
      return '(history compacted)';
    case 'hookPrompt':
      return `Stop hook: ${item.fragments.map((f) => f.text).join('; ')}`;
    case 'enteredReviewMode':
      return `Review: ${item.review}`;
    case 'exitedReviewMode':
      return `Review finished:\n${indent(item.review)}`;
    case 'browserAction': {
      const what = `Browser ${item.action}${item.target === '' ? '' : ` ${oneLine(item.target, 200)}`} (${item.status})`;
      const shot = item.screenshot === null ? '' : `\n    screenshot ${item.screenshot.path}`;
      return `${what}${item.url === null ? '' : ` at ${item.url}`}${item.error === null ? '' : `: ${item.error}`}${shot}`;
    }
    default:
      return assertNever(item, 'thread item');
  }
}

function renderTurn(turn: Turn, n: number): string {
  const head = `── turn ${n} · ${turn.status} · ${when(turn.startedAt)}${turn.error ? ` · ${turn.error.message}` : ''}`;
  return [head, ...turn.items.map(renderItem)].join('\n');
}

function positiveInt(value: string | undefined, what: string): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1)
    throw new UsageError(`${what} must be a whole number of at least 1, got "${value}"`);
  return n;
}

async function run(store: ThreadStore, command: string, args: string[], io: ThreadsCommandIo): Promise<number> {
  const out = (text: string): void => void io.stdout.write(text.endsWith('\n') ? text : `${text}\n`);
  switch (command) {
    case 'list': {
      const { values } = parseArgs({
        args,
        options: {
          cwd: { type: 'string' },
          archived: { type: 'boolean' },
          search: { type: 'string' },
          sort: { type: 'string' },
          limit: { type: 'string' },
          cursor: { type: 'string' },
          json: { type: 'boolean' },
        },
      });
      if (values.sort !== undefined && values.sort !== 'created' && values.sort !== 'updated') {
        throw new UsageError(`--sort must be "created" or "updated", got "${values.sort}"`);
      }
      await store.whenIndexed();
      const page = await store.listComplete({
        cwd: values.cwd === undefined ? null : resolve(values.cwd),
        archived: values.archived ?? false,
        searchTerm: values.search ?? null,
        sortKey: values.sort === 'updated' ? 'updated_at' : 'created_at',
        limit: positiveInt(values.limit, '--limit') ?? null,
        cursor: values.cursor ?? null,
      });
      if (values.json) {
        out(JSON.stringify(page));
        return 0;
      }
      if (page.data.length === 0) out(values.search ? 'No thread matches.' : 'No threads yet.');
      for (const t of page.data) {
        const pin = t.weftPinned === true ? '[pinned] ' : '';
        out(
          `${t.id}  ${when(values.sort === 'updated' ? t.updatedAt : t.createdAt)}  ${pin}${oneLine(threadTitle(t), 60)}  ${t.cwd}`,
        );
      }
      if (page.nextCursor) out(`More: weft threads list --cursor ${page.nextCursor}`);
      return 0;
    }
    case 'read': {
      const { values, positionals } = parseArgs({
        args,
        allowPositionals: true,
        options: { json: { type: 'boolean' } },
      });
      const id = positionals[0];
      if (id === undefined) throw new UsageError('read needs a thread id');
      const result = store.read(id, { includeTurns: true });
      if (values.json) {
        out(JSON.stringify({ thread: result.thread, turnDetails: result.turnDetails, warnings: result.warnings }));
        return 0;
      }
      const t = result.thread;
      out(
        `${threadTitle(t)}\n${t.id} · ${t.cwd} · created ${when(t.createdAt)}${t.forkedFromId ? ` · forked from ${t.forkedFromId}` : ''}`,
      );
      t.turns.forEach((turn, i) => out(`\n${renderTurn(turn, i + 1)}`));
      for (const w of result.warnings) io.stderr.write(`weft: warning: ${w}\n`);
      return 0;
    }
    case 'rename': {
      const [id, ...name] = args;
      if (id === undefined || name.length === 0) throw new UsageError('rename needs a thread id and a name');
      await store.setName(id, name.join(' '));
      return 0;
    }
    case 'archive':
    case 'unarchive': {
      const id = args[0];
      if (id === undefined) throw new UsageError(`${command} needs a thread id`);
      if (command === 'archive') store.archive(id);
      else store.unarchive(id);
      return 0;
    }
    case 'revert':
      return revertThread(
        store,
        args,
        { out, err: (text) => void io.stderr.write(text), weftHome: resolveWeftHome(io.env), env: io.env },
        (message) => new UsageError(message),
      );
    case 'reindex': {
      await store.whenIndexed();
      const report = await store.reindex();
      for (const w of report.warnings) io.stderr.write(`weft: warning: ${w}\n`);
      out(
        `Indexed ${report.indexed} thread(s) from ${report.files} rollout file(s)${report.removed > 0 ? `; dropped ${report.removed} whose file is gone` : ''}.`,
      );
      return 0;
    }
    case 'import-codex': {
      const flag = args.find((a) => a.startsWith('-'));
      if (flag !== undefined) throw new UsageError(`import-codex takes only a CODEX_HOME folder, not "${flag}"`);
      await store.whenIndexed();
      const result = await store.importCodex(args[0]);
      for (const w of result.warnings) io.stderr.write(`weft: warning: ${w}\n`);
      out(`Imported ${result.imported} Codex thread(s).`);
      return 0;
    }
    default:
      throw new UsageError(`unknown command "${command}"`);
  }
}

/** Runs `weft threads …`; returns the exit status (0 ok, 1 failed, 2 usage). */
export async function runThreadsCommand(argv: string[], io: ThreadsCommandIo = defaultIo()): Promise<number> {
  const [command, ...args] = argv;
  if (command === undefined || command === 'help' || command === '--help' || command === '-h') {
    io.stdout.write(USAGE);
    return command === undefined ? 2 : 0;
  }
  // `weft threads <command> --help` explains rather than running the command with "--help" as an argument.
  if (args.includes('--help') || args.includes('-h')) {
    io.stdout.write(USAGE);
    return 0;
  }
  let store: ThreadStore | null = null;
  try {
    store = ThreadStore.open(resolveWeftHome(io.env), { onWarning: (m) => io.stderr.write(`weft: warning: ${m}\n`) });
    return await run(store, command, args, io);
  } catch (error) {
    if (
      error instanceof UsageError ||
      (error instanceof TypeError && 'code' in error && String(error.code).startsWith('ERR_PARSE_ARGS'))
    ) {
      io.stderr.write(`weft threads: ${error.message}\n\n${USAGE}`);
      return 2;
    }
    io.stderr.write(`weft threads: ${error instanceof StoreError ? error.message : errorMessage(error)}\n`);
    return 1;
  } finally {
    await store?.close();
  }
}
