// A fork written without holding the event loop (the app host's `thread/fork`): the same file as
// `writeForkOf` writes (fork-file.ts), made in slices. The source is outlined from its saved outline when it
// has one (else by a pass that gives the loop back every slice), its lines are copied a megabyte at a time
// with each write awaited, and the new file is indexed and outlined in one more sliced pass, from which the
// fork's newest turns are read. Its model history is only located: the fork's first turn reads it (as a
// resume does, `LoadOptions.history: 'later'`).
import { mkdir, open, rename, rm } from 'node:fs/promises';
import { dirname } from 'node:path';
import type { Catalog, Located } from './catalog';
import { copyLines, cutAt, forkChunks, type CopyTarget } from './fork-file';
import { summarizeSteps } from './index-scan';
import { loadOutlinedAsync, type LoadedThread } from './loader';
import { continueOutlineAsync } from './outline';
import { decodeOutline } from './outline-snapshot';
import { closeRollout, openRollout } from './rollout-source';
import { SLICE_MS, Slicer } from '../util/slicer';
import { runSliced } from './slices';

/**
 * Writes the fork of `source` (after `afterTurnId`, or all of it) as the new thread `target.id` at
 * `target.path`, giving the event loop back as it goes. `savedOutline` gives the source's saved outline.
 */
export async function writeForkOfAsync(
  source: Located,
  afterTurnId: string | null,
  target: CopyTarget,
  savedOutline: () => Buffer | null,
): Promise<void> {
  const { fd } = openRollout(source.path);
  try {
    const saved = savedOutline();
    const start = saved === null ? null : decodeOutline(saved, fd, source.path);
    const outlined = await continueOutlineAsync(fd, source.path, {}, start);
    const plan = cutAt(outlined.outline, source.id, afterTurnId);
    const { meta, extra } = copyLines(source, plan, afterTurnId, target);
    await mkdir(dirname(target.path), { recursive: true });
    await writeAtomicallyAsync(target.path, forkChunks(fd, plan, meta, target.created, extra));
  } finally {
    closeRollout(fd);
  }
}

/**
 * Writes `chunks` as a whole new file at `target`: into a temp file, fsynced, then renamed over (a fork
 * exists whole or not). Each chunk's write is awaited; making the next one is a slice of its own.
 */
async function writeAtomicallyAsync(target: string, chunks: Generator<Buffer, unknown>): Promise<void> {
  const tmp = `${target}.tmp-${process.pid}`;
  const out = await open(tmp, 'w');
  try {
    const slicer = new Slicer(SLICE_MS);
    for (const chunk of chunks) {
      for (let off = 0; off < chunk.length;) off += (await out.write(chunk, off, chunk.length - off)).bytesWritten;
      if (slicer.due()) await slicer.pause();
    }
    await out.sync();
    await out.close();
    await rename(tmp, target);
  } catch (error) {
    await out.close().catch(() => undefined);
    await rm(tmp, { force: true });
    throw error;
  }
}

/**
 * Indexes a fork this process just wrote and reads its newest `turnsLimit` turns, in one sliced pass over
 * the file (the index summary and the outline it makes). The outline is kept for the fork's next read.
 */
export async function indexAndLoadFork(
  catalog: Catalog,
  threadId: string,
  path: string,
  turnsLimit: number | null | undefined,
): Promise<LoadedThread> {
  const { fd } = openRollout(path);
  try {
    const { summary, outlined } = await runSliced(
      summarizeSteps(fd, path, { archived: false, origin: 'weft' }),
      SLICE_MS,
    );
    catalog.indexSummary(threadId, summary);
    const state = await loadOutlinedAsync(fd, outlined, { history: 'later', turnsLimit });
    catalog.saveOutlineLater(threadId, state);
    return state;
  } finally {
    closeRollout(fd);
  }
}
