// `weft threads revert ID --before TURN [--files] [--force]`: drop a turn and every later one from a
// thread's history; with --files, put the project's files back as they were before that turn too.
import { parseArgs } from 'node:util';
import { displayPath } from '../../src-preload/protocol';
import { CheckpointConflictError } from '../checkpoints/errors';
import { CheckpointService } from '../checkpoints/service';
import { checkpointSettings } from '../checkpoints/settings';
import { loadConfig } from '../config';
import { finishInterruptedRestores } from '../server/restore-recovery';
import type { ThreadStore } from '../store';

export interface RevertIo {
  out(text: string): void;
  err(text: string): void;
  weftHome: string;
  env: NodeJS.ProcessEnv;
}

/** Returns the exit status: 0 done, 1 refused (conflicts) or failed. Throws on bad arguments. */
export async function revertThread(
  store: ThreadStore,
  args: string[],
  io: RevertIo,
  usage: (message: string) => Error,
): Promise<number> {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: { before: { type: 'string' }, files: { type: 'boolean' }, force: { type: 'boolean' } },
  });
  const id = positionals[0];
  if (id === undefined || values.before === undefined) throw usage('revert needs a thread id and --before TURN_ID');
  if (values.force === true && values.files !== true) throw usage('--force only applies with --files');
  // An Undo a crash cut short is finished first, so the turns below are the thread's real ones.
  const recovery = new CheckpointService({ weftHome: io.weftHome });
  try {
    await finishInterruptedRestores(
      recovery,
      () => ({ store, release: () => Promise.resolve() }),
      (line) => io.err(`${line}\n`),
    );
  } finally {
    await recovery.dispose();
  }
  const read = store.read(id, { includeTurns: true, turnsLimit: 100_000 });
  const ids = read.thread.turns.map((turn) => turn.id);
  const index = ids.indexOf(values.before);
  if (index < 0)
    throw usage(`turn ${values.before} is not in thread ${id}; \`weft threads read ${id} --json\` lists its turns`);
  const turnIds = ids.slice(index);
  let pending: string | null = null;
  let service: CheckpointService | null = null;
  if (values.files === true) {
    const { config } = await loadConfig({ weftHome: io.weftHome, cwd: read.thread.cwd, env: io.env });
    service = new CheckpointService(checkpointSettings(config, io.weftHome).service);
    try {
      const outcome = await service.revert({
        threadId: id,
        root: read.thread.cwd,
        turnIds,
        force: values.force === true,
        thread: { threadId: id, beforeTurnId: values.before, turns: turnIds.length },
      });
      pending = outcome.pending;
      io.out(
        `Restored ${outcome.restored.length} file(s) in ${read.thread.cwd}${outcome.overwritten.length > 0 ? `; overwrote (after saving them) ${outcome.overwritten.map(displayPath).join(', ')}` : ''}.`,
      );
      for (const item of outcome.notRestored) io.out(`  ${displayPath(item.path)}: not restored: ${item.reason}`);
      for (const note of outcome.notes) io.out(`  ${note}`);
    } catch (error) {
      await service.dispose();
      if (error instanceof CheckpointConflictError) {
        io.err(`weft threads: ${error.message}\n  Run again with --force to overwrite them.\n`);
        return 1;
      }
      throw error;
    }
  }
  try {
    await store.rollback(id, turnIds.length);
    if (pending !== null) await service?.finishRevert(pending);
  } finally {
    await service?.dispose();
  }
  io.out(
    `Dropped ${turnIds.length} turn(s) from thread ${id}${values.files === true ? '' : ' (files untouched; add --files to restore them)'}.`,
  );
  return 0;
}
