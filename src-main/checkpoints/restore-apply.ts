/**
 * Puts a set of paths into given states. Every new file is first staged as `<root>/.weft-restore-<id>.nN`
 * (inside the workspace: the same file system, so each step is one rename, and hard-link backups work);
 * a journal in the checkpoint store then says "applying" (fsynced) and the steps run. A path that cannot
 * be restored (something in the way, a folder that is a symlink, its content lost) is reported with its
 * reason and every other path is restored; an unexpected error undoes the steps done. After a crash,
 * `recoverRestores` finishes what a journal says was applying (or drops what was only staged).
 *
 * Nothing is done by path: the root is opened from `/` without following symlinks and every folder
 * written into is held open (see restore-ops.ts), so a background process swapping a folder for a
 * symlink cannot make the restore write outside the workspace. Staged entries are created in the held
 * root itself (O_CREAT | O_EXCL | O_NOFOLLOW), not in a staging folder: between a folder's mkdir and its
 * open a watching process can always put a symlink in its place (measured: it won nearly every time),
 * while the root cannot be swapped once it is open. A staged entry replaced by someone is still only
 * moved within the workspace. Once the steps are done, each path is looked at through the same folder
 * handles (restore-verify.ts): one whose entry or folder changed meanwhile is reported, not claimed.
 * The work is asynchronous (node:fs/promises), so a big restore does not hold the event loop.
 */
import { randomBytes } from 'node:crypto';
import { constants } from 'node:fs';
import { open, realpath, symlink, unlink } from 'node:fs/promises';
import { OpenDir } from '../util/open-dir';
import { BlobDamagedError, type BlobStore } from './blob-store';
import { CheckpointError } from './errors';
import { keyProblem } from './path-key';
import {
  currentOwner,
  ownerAlive,
  readJournals,
  removeJournal,
  writeJournal,
  type Journal,
  type Kind,
  type Op,
  type ThreadRevert,
} from './restore-journal';
import { applyOp, DirCache, parentsOf, PathRefusal, refusalOf, undoOp } from './restore-ops';
import { unmetStates } from './restore-verify';
import type { Entry } from './types';

export const STAGING_PREFIX = '.weft-restore-';
/** Files staged at once. */
const STAGE_CONCURRENCY = 8;

/** One path, the state it should end in (null = absent), and the state the plan saw it in. */
export interface DesiredState {
  path: string;
  state: Entry | null;
  current: Entry | null;
}

/** A path left as it was, and why (for people). */
export interface NotRestored {
  path: string;
  reason: string;
}

export interface ApplyHooks {
  /** Called once everything is staged, before the first step (tests use it to stop a process there). */
  afterStaging?: () => Promise<void> | void;
  /**
   * Called after each step (tests use it to stop a process mid-restore, or to move a folder after the
   * last step, before the restore looks at what it did).
   */
  afterStep?: (index: number, total: number) => Promise<void> | void;
}

export interface ApplyRequest {
  root: string;
  journalDir: string;
  blobs: BlobStore;
  desired: readonly DesiredState[];
  hooks?: ApplyHooks;
  /** The thread revert this restore belongs to: the journal stays until `finishRevert` says it is written. */
  thread?: ThreadRevert | null;
}

export interface ApplyResult {
  /** Desired paths in their state once the steps were done, as the folders written into show them. */
  restored: string[];
  /** Desired paths left as they were. */
  notRestored: NotRestored[];
  /** The journal to finish once the thread's revert is written (null: nothing to finish). */
  pending: string | null;
}

/** Applies the desired states; throws (having undone what it wrote) only for an unexpected error. */
export async function applyRestore(request: ApplyRequest): Promise<ApplyResult> {
  const refused = new Map<string, string>();
  const refuse = (path: string, reason: string): void => {
    if (!refused.has(path)) refused.set(path, reason);
  };
  const valid = request.desired.filter((item) => {
    const problem = keyProblem(item.path);
    if (problem !== null) refuse(item.path, problem);
    return problem === null;
  });
  const id = `${Date.now().toString(36)}-${randomBytes(4).toString('hex')}`;
  const { ops, targets } = planOps(valid, `${STAGING_PREFIX}${id}.`);
  let rootPath: string;
  let root: OpenDir;
  try {
    rootPath = await realpath(request.root);
    root = await OpenDir.open(rootPath);
  } catch (error) {
    throw new CheckpointError(
      `Nothing was restored: the project folder ${request.root} cannot be opened (${String(error)}).`,
    );
  }
  const dirs = new DirCache(root);
  const journal: Journal = {
    v: 2,
    id,
    root: rootPath,
    state: 'staging',
    ops: [],
    thread: request.thread ?? null,
    owner: currentOwner(),
  };
  try {
    await writeJournal(request.journalDir, journal);
    const staged = await stageAll(ops, targets, root, request.blobs, refuse);
    await root.sync();
    await request.hooks?.afterStaging?.();
    journal.state = 'applying';
    journal.ops = staged;
    await writeJournal(request.journalDir, journal);
    const done: Op[] = [];
    try {
      for (const [index, op] of staged.entries()) {
        await dirs.trim();
        try {
          if (await applyOp(op, dirs, root, false)) done.push(op);
        } catch (error) {
          const refusal = refusalOf(op.path, error);
          if (refusal === null) throw error;
          if (op.kind !== 'mkdir' || !op.implicit) refuse(op.path, refusal.reason);
        }
        await request.hooks?.afterStep?.(index, staged.length);
      }
    } catch (error) {
      for (const op of done.reverse()) await undoOp(op, dirs, root);
      throw error;
    }
    // What is called restored is what the folders written into hold now (see restore-verify.ts).
    const unmet = await unmetStates(
      valid.filter((item) => !refused.has(item.path)),
      dirs,
    );
    for (const [path, reason] of unmet) refuse(path, reason);
    await cleanStaged(root, id);
    if (journal.thread !== null) {
      journal.state = 'applied';
      await writeJournal(request.journalDir, journal);
    } else await removeJournal(request.journalDir, id);
  } catch (error) {
    await cleanStaged(root, id);
    await removeJournal(request.journalDir, id);
    throw error;
  } finally {
    await dirs.closeAll();
    await root.close();
  }
  return {
    restored: valid.map((item) => item.path).filter((path) => !refused.has(path)),
    notRestored: [...refused].map(([path, reason]) => ({ path, reason })),
    pending: journal.thread !== null ? id : null,
  };
}

/**
 * The steps, in the order they run: removals (deepest first), folders (top first), files, modes; and
 * the state each file step puts in place, by its stage name (the journal needs only the names).
 */
function planOps(desired: readonly DesiredState[], prefix: string): { ops: Op[]; targets: Map<string, Entry> } {
  const targets = new Map<string, Entry>();
  let n = 0;
  const nextName = (): string => `${prefix}n${(n += 1)}`;
  const removals: Op[] = [];
  const rmdirs: Op[] = [];
  const mkdirs = new Map<string, Op & { kind: 'mkdir' }>();
  const places: Op[] = [];
  const chmods: Op[] = [];
  const desiredDirs = new Set(desired.filter((d) => d.state?.kind === 'dir').map((d) => d.path));
  const wantParents = (path: string): void => {
    for (const dir of parentsOf(path))
      if (!desiredDirs.has(dir) && !mkdirs.has(dir))
        mkdirs.set(dir, { kind: 'mkdir', path: dir, mode: 0o755, implicit: true });
  };
  for (const { path, state, current } of desired) {
    const kind: Kind | null = current?.kind ?? null;
    if (state === null) {
      if (kind === 'dir') rmdirs.push({ kind: 'rmdir', path });
      else if (kind !== null) removals.push({ kind: 'remove', path, backup: nextName(), expect: kind });
      continue;
    }
    if (state.kind === 'dir') {
      const mode = state.mode & 0o7777;
      if (kind === 'dir') {
        if (current?.kind === 'dir' && (current.mode & 0o7777) !== mode)
          chmods.push({ kind: 'chmod', path, mode, oldMode: current.mode & 0o7777 });
        continue;
      }
      if (kind !== null) removals.push({ kind: 'remove', path, backup: nextName(), expect: kind });
      wantParents(path);
      // Created writable, so what goes inside can be placed; its own mode comes last.
      mkdirs.set(path, { kind: 'mkdir', path, mode: mode | 0o700, implicit: false });
      if ((mode | 0o700) !== mode) chmods.push({ kind: 'chmod', path, mode, oldMode: mode | 0o700 });
      continue;
    }
    if (kind === 'dir') rmdirs.push({ kind: 'rmdir', path });
    wantParents(path);
    const stage = nextName();
    targets.set(stage, state);
    places.push({ kind: 'place', path, stage, backup: nextName(), expect: kind === 'dir' ? null : kind });
  }
  const depth = (op: Op): number => op.path.split('/').length;
  removals.sort((a, b) => depth(b) - depth(a));
  rmdirs.sort((a, b) => depth(b) - depth(a));
  const folders = [...mkdirs.values()].sort((a, b) => depth(a) - depth(b));
  chmods.sort((a, b) => depth(b) - depth(a));
  return { ops: [...removals, ...rmdirs, ...folders, ...places, ...chmods], targets };
}

/**
 * Writes each file and symlink to restore as a staged entry of the root (content checked against its
 * hash, mode set on the open file, fsynced). Returns the steps to run: a path whose content is lost is
 * refused and its step dropped.
 */
async function stageAll(
  ops: Op[],
  targets: ReadonlyMap<string, Entry>,
  root: OpenDir,
  blobs: BlobStore,
  refuse: (path: string, reason: string) => void,
): Promise<Op[]> {
  const dropped = new Set<Op>();
  const places = ops.filter((op) => op.kind === 'place');
  // Several at a time: most of the cost is each file's fsync, which the file system can batch.
  let next = 0;
  const worker = async (): Promise<void> => {
    for (let op = places[next++]; op !== undefined; op = places[next++]) {
      const target = targets.get(op.stage);
      if (target === undefined || target.kind === 'dir') {
        dropped.add(op);
        continue;
      }
      try {
        await stageOne(target, root.at(op.stage), blobs);
      } catch (error) {
        dropped.add(op);
        if (error instanceof BlobDamagedError)
          refuse(op.path, `its stored copy (checkpoint blob ${error.hash.slice(0, 12)}) is missing or damaged`);
        else {
          const refusal = refusalOf(op.path, error);
          if (refusal === null) throw error;
          refuse(op.path, refusal.reason);
        }
      }
    }
  };
  await Promise.all(Array.from({ length: STAGE_CONCURRENCY }, worker));
  return ops.filter((op) => !dropped.has(op));
}

async function stageOne(target: Exclude<Entry, { kind: 'dir' }>, at: string, blobs: BlobStore): Promise<void> {
  if (target.kind === 'symlink') {
    if (target.target === '') throw Object.assign(new Error('empty symlink target'), { code: 'EINVAL' });
    await symlink(target.target, at);
    return;
  }
  if (target.hash === null) throw new PathRefusal('', 'its earlier version was not checkpointed (too large)');
  const bytes = await blobs.read(target.hash);
  const file = await open(at, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, 0o600);
  try {
    await file.writeFile(bytes);
    await file.chmod(target.mode & 0o7777);
    await file.sync();
  } finally {
    await file.close();
  }
}

/** Removes the restore's staged entries and backups (and whatever someone renamed them to) from the root. */
async function cleanStaged(root: OpenDir, id: string): Promise<void> {
  const prefix = Buffer.from(`${STAGING_PREFIX}${id}.`);
  try {
    for (const name of await root.names()) {
      if (!name.subarray(0, prefix.length).equals(prefix)) continue;
      try {
        await unlink(root.at(name));
      } catch {
        /* a folder someone put there is left */
      }
    }
  } catch {
    /* left in place: the tracker never looks at .weft-restore-* */
  }
}

/** A thread revert whose files are restored and whose turns are still to be dropped. */
export interface PendingRevert {
  journal: string;
  root: string;
  thread: ThreadRevert;
}

/**
 * Finishes or drops the restores of processes that died (call at start-up, before answering anyone).
 * Journals of a process still running are left to it. Returns the thread reverts still to be written
 * (then `removeJournal`) and what could not be finished, for the log.
 */
export async function recoverRestores(journalDir: string): Promise<{ pending: PendingRevert[]; warnings: string[] }> {
  const pending: PendingRevert[] = [];
  const warnings: string[] = [];
  for (const journal of await readJournals(journalDir)) {
    if (ownerAlive(journal.owner)) continue;
    let root: OpenDir;
    try {
      root = await OpenDir.open(journal.root);
    } catch (error) {
      warnings.push(
        `an interrupted restore in ${journal.root} was dropped: the folder cannot be opened (${String(error)})`,
      );
      await removeJournal(journalDir, journal.id);
      continue;
    }
    const dirs = new DirCache(root);
    try {
      if (journal.state === 'applying')
        for (const op of journal.ops) {
          await dirs.trim();
          try {
            await applyOp(op, dirs, root, true);
          } catch (error) {
            warnings.push(
              `${journal.root}: ${op.path}: left as it is: ${refusalOf(op.path, error)?.reason ?? String(error)}`,
            );
          }
        }
      await cleanStaged(root, journal.id);
      if (journal.thread !== null && journal.state !== 'staging') {
        if (journal.state !== 'applied') await writeJournal(journalDir, { ...journal, state: 'applied' });
        pending.push({ journal: journal.id, root: journal.root, thread: journal.thread });
      } else await removeJournal(journalDir, journal.id);
    } finally {
      await dirs.closeAll();
      await root.close();
    }
  }
  return { pending, warnings };
}
