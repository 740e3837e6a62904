// `weft threads revert ID --before TURN [--files] [--force]`: drop a turn and every later one from a
// thread's history; with --files, put the project's files back as they were before that turn too.
import { parseArgs } from 'node:util';
import { CheckpointConflictError } from '../checkpoints/errors';
import { CheckpointService } from '../checkpoints/service';
import { checkpointSettings } from '../checkpoints/settings';
import { loadConfig } from '../config';
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
  const read = store.read(id, { includeTurns: true, turnsLimit: 100_000 });
  const ids = read.thread.turns.map((turn) => turn.id);
  const index = ids.indexOf(values.before);
  if (index < 0)
    throw usage(`turn ${values.before} is not in thread ${id}; \`weft threads read ${id} --json\` lists its turns`);
  const turnIds = ids.slice(index);
  if (values.files === true) {
    const { config } = await loadConfig({ weftHome: io.weftHome, cwd: read.thread.cwd, env: io.env });
    const service = new CheckpointService(checkpointSettings(config, io.weftHome).service);
    try {
      const outcome = await service.revert({
        threadId: id,
        root: read.thread.cwd,
        turnIds,
        force: values.force === true,
      });
      io.out(
        `Restored ${outcome.restored.length} path(s) in ${read.thread.cwd}${outcome.overwritten.length > 0 ? `; overwrote (after saving them) ${outcome.overwritten.join(', ')}` : ''}.`,
      );
      for (const note of outcome.notes) io.out(`  ${note}`);
    } catch (error) {
      if (error instanceof CheckpointConflictError) {
        io.err(`weft threads: ${error.message}\n  Run again with --force to overwrite them.\n`);
        return 1;
      }
      throw error;
    } finally {
      service.dispose();
    }
  }
  await store.rollback(id, turnIds.length);
  io.out(
    `Dropped ${turnIds.length} turn(s) from thread ${id}${values.files === true ? '' : ' (files untouched; add --files to restore them)'}.`,
  );
  return 0;
}
