// Makes test/fixtures/codex-0.169/ with the real Codex CLI (not part of `npm test`: it needs the codex
// binary). Run by hand: `node scripts/codex-tools.mjs make-fixtures [path/to/codex]` (default: $CODEX_BIN).
// It drives `codex exec`, `codex exec resume`, `codex exec fork`, a compaction, a rename (app-server
// `thread/name/set`) and `codex archive` against a scripted model on 127.0.0.1 (codex-fixture-model.ts),
// then copies the rollouts and session_index.jsonl with machine paths replaced by /home/dev/….
import { existsSync, mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { codexAppServer, codexExec, runCodex, writeCodexConfig, type CodexEnv, scrubPaths } from './codex-cli';
import { startFixtureModel } from './codex-fixture-model';

const codex = process.argv[2] ?? process.env['CODEX_BIN'] ?? 'codex';
const scratch = resolve(process.env['CODEX_FIXTURE_SCRATCH'] ?? join(process.cwd(), '.codex-fixture-scratch'));
const out = resolve(process.env['CODEX_FIXTURE_OUT'] ?? 'test/fixtures/codex-0.169');
const home = join(scratch, 'home');
const work = join(scratch, 'demo');

const c: CodexEnv = { codex, home, work };
const exec = (args: string[]): Promise<string> => codexExec(c, args);

function rollouts(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile() && e.name.endsWith('.jsonl'))
    .map((e) => join(e.parentPath, e.name));
}

function scrub(text: string): string {
  return scrubPaths(text, c, scratch);
}

/**
 * Scrubbing changes byte lengths, so a fork's `history_base.end_byte_offset` is set again: the end of the
 * parent's last line before `end_ordinal_exclusive` in the scrubbed parent.
 */
function fixHistoryBases(files: string[]): void {
  for (const file of files) {
    const lines = readFileSync(file, 'utf8').split('\n');
    const head: unknown = JSON.parse(lines[0] ?? '{}');
    const meta = typeof head === 'object' && head !== null && 'payload' in head ? head.payload : null;
    if (typeof meta !== 'object' || meta === null || !('history_base' in meta)) continue;
    const base = meta.history_base;
    if (typeof base !== 'object' || base === null || !('thread_id' in base) || !('end_ordinal_exclusive' in base))
      continue;
    const parent = files.find((f) => f.endsWith(`-${String(base.thread_id)}.jsonl`));
    if (!parent) continue;
    let offset = 0;
    for (const line of readFileSync(parent, 'utf8').split('\n')) {
      if (line === '') break;
      const ordinal = /^\{"timestamp":"[^"]*","ordinal":(\d+),/.exec(line)?.[1];
      if (ordinal === undefined || Number(ordinal) >= Number(base.end_ordinal_exclusive)) break;
      offset += Buffer.byteLength(line) + 1;
    }
    const fixed = lines[0]?.replace(/"end_byte_offset":\d+/, `"end_byte_offset":${offset}`) ?? '';
    writeFileSync(file, [fixed, ...lines.slice(1)].join('\n'));
  }
}

async function main(): Promise<void> {
  rmSync(scratch, { recursive: true, force: true });
  mkdirSync(home, { recursive: true });
  mkdirSync(work, { recursive: true });
  const model = await startFixtureModel();
  try {
    writeCodexConfig(c, model.server.url);
    // One thread of three turns: a command, a patch, reasoning.
    const main = await exec(['RUN echo marker-alpha']);
    await exec(['resume', main, 'PATCH notes-beta.txt zebra-gamma']);
    await exec(['resume', main, 'THINK pondering quokka-delta']);
    // A fork of it, continued once.
    const fork = await exec(['fork', main, 'please summarise the fork ocelot-epsilon']);
    // A fork of the fork: its history reaches through two parents.
    const forkOfFork = await exec(['fork', fork, 'second fork walks two parents kestrel-theta']);
    // A compaction: a tiny auto-compaction limit makes the second turn compact first.
    writeCodexConfig(c, model.server.url, 500);
    model.setUsageTokens(2000);
    const compacted = await exec(['first words before compaction walrus-zeta']);
    model.setUsageTokens(100);
    await exec(['resume', compacted, 'second words after compaction yak-eta']);
    writeCodexConfig(c, model.server.url);
    // A rename, then the parent of the fork archived.
    const renamed = await codexAppServer(c, [
      { method: 'thread/name/set', params: { threadId: main, name: 'Renamed main thread' } },
    ]);
    process.stderr.write(`rename: ${JSON.stringify(renamed)}\n`);
    const archived = await runCodex(c, ['archive', main]);
    process.stderr.write(`archive: ${archived.status} ${archived.stdout} ${archived.stderr}\n`);
    rmSync(out, { recursive: true, force: true });
    mkdirSync(out, { recursive: true });
    const written: string[] = [];
    for (const file of [...rollouts(join(home, 'sessions')), ...rollouts(join(home, 'archived_sessions'))]) {
      const target = join(out, relative(home, file));
      mkdirSync(resolve(target, '..'), { recursive: true });
      writeFileSync(target, scrub(readFileSync(file, 'utf8')));
      written.push(target);
    }
    fixHistoryBases(written);
    if (existsSync(join(home, 'session_index.jsonl')))
      writeFileSync(join(out, 'session_index.jsonl'), scrub(readFileSync(join(home, 'session_index.jsonl'), 'utf8')));
    writeFileSync(join(out, 'threads.json'), JSON.stringify({ main, fork, forkOfFork, compacted }, null, 2) + '\n');
    process.stderr.write(`fixtures written to ${out}\n`);
  } finally {
    await model.close();
  }
}

await main();
