// Reverting a thread with its files, and Weft's checkpoint methods (see PROTOCOL.md "thread/revert").
import { z } from 'zod';
import { lazySchema } from './lazy-schema';
import { WeftEnvironmentName } from './weft-environments';
import { WEFT_EXTENSION } from './common';
import { Thread } from './thread';

/** The JSON-RPC error code of a restore refused because files changed since the agent wrote them. */
export const CHECKPOINT_CONFLICT_CODE = -32010;

/**
 * Go back to just before turn `beforeTurnId`: it and every later turn leave the thread's history (and the
 * model's context). `weftRestoreFiles` (Weft): put the files back as they were before that turn, in the
 * same step; `weftForce`: overwrite files changed since by someone else (their versions are checkpointed
 * first); `weftKeepFiles`: workspace-relative paths left exactly as they are now (the user chose "Keep
 * mine" for them), every other file is restored.
 */
export const ThreadRevertParams = lazySchema(() =>
  z.object({
    threadId: z.string().min(1),
    beforeTurnId: z.string().min(1),
    weftRestoreFiles: z.boolean().nullish().meta(WEFT_EXTENSION),
    weftForce: z.boolean().nullish().meta(WEFT_EXTENSION),
    weftKeepFiles: z.array(z.string().min(1)).nullish().meta(WEFT_EXTENSION),
  }),
);
export type ThreadRevertParams = z.infer<typeof ThreadRevertParams>;

/** A file a restore left as it was, and why (for people: "x is not a folder"). */
export const FileNotRestored = lazySchema(() => z.object({ path: z.string(), reason: z.string() }));
export type FileNotRestored = z.infer<typeof FileNotRestored>;

/** A command the agent had left running (an exec session), stopped before the files were touched. */
export const StoppedCommand = lazySchema(() => z.object({ sessionId: z.number(), command: z.string() }));
export type StoppedCommand = z.infer<typeof StoppedCommand>;

/**
 * `data` of a -32010 error: the files someone else changed (workspace-relative); the commands the agent
 * had left running that were stopped before the files were compared (they stay stopped).
 */
export const CheckpointConflictData = lazySchema(() =>
  z.object({
    conflicts: z.array(z.string()),
    stoppedCommands: z.array(StoppedCommand).optional(),
  }),
);
export type CheckpointConflictData = z.infer<typeof CheckpointConflictData>;

/**
 * What a file restore did: files and links written/created/removed (`restored`; the folders made or
 * removed with them are not listed), paths overwritten by force, paths left as they
 * were because the request kept them (`weftKeepFiles`), paths that could not be restored with the reason
 * (the others are restored all the same), the commands the agent had left running that were stopped
 * first (so they could not change files during the restore), notes for people. Paths are
 * workspace-relative; see checkpoint-paths.ts for names that are not UTF-8.
 */
export const WeftFilesRestored = lazySchema(() =>
  z.object({
    restored: z.array(z.string()),
    overwritten: z.array(z.string()),
    kept: z.array(z.string()).optional(),
    notRestored: z.array(FileNotRestored),
    stoppedCommands: z.array(StoppedCommand),
    notes: z.array(z.string()),
  }),
);
export type WeftFilesRestored = z.infer<typeof WeftFilesRestored>;

export const ThreadRevertResult = lazySchema(() =>
  z.object({
    thread: Thread,
    weftFiles: WeftFilesRestored.nullish().meta(WEFT_EXTENSION),
  }),
);
export type ThreadRevertResult = z.infer<typeof ThreadRevertResult>;

export const ThreadRevertedNotification = lazySchema(() =>
  z.object({
    threadId: z.string(),
    /** Weft: the turn the thread went back to before, and the turns dropped, oldest first. */
    weftBeforeTurnId: z.string().optional().meta(WEFT_EXTENSION),
    weftTurnIds: z.array(z.string()).optional().meta(WEFT_EXTENSION),
    weftFiles: WeftFilesRestored.nullish().meta(WEFT_EXTENSION),
  }),
);
export type ThreadRevertedNotification = z.infer<typeof ThreadRevertedNotification>;

/** Weft: turns an undo dropped are back (`weft/checkpoints/redo`): clients read the thread again. */
export const WeftThreadTurnsRestoredNotification = lazySchema(() =>
  z.object({ threadId: z.string(), turnIds: z.array(z.string()) }),
);
export type WeftThreadTurnsRestoredNotification = z.infer<typeof WeftThreadTurnsRestoredNotification>;

/** What reverting to before `beforeTurnId` would do to the files; nothing is written. */
export const CheckpointPreviewParams = lazySchema(() => z.object({ threadId: z.string(), beforeTurnId: z.string() }));
export type CheckpointPreviewParams = z.infer<typeof CheckpointPreviewParams>;

export const CheckpointPreviewFile = lazySchema(() =>
  z.object({
    path: z.string(),
    change: z.enum(['add', 'delete', 'update']),
    /** The file changed since the agent wrote it: restoring would overwrite someone else's work. */
    conflict: z.boolean(),
    /**
     * Text now and after the restore; null when absent, binary, too large to show, or `deferred`.
     */
    current: z.string().nullable(),
    restored: z.string().nullable(),
    binary: z.boolean(),
    /**
     * The texts were not sent with the preview (the answer carries the first files' texts only, so that it
     * stays small however many files the turns changed): ask `weft/checkpoints/previewFile` for them.
     */
    deferred: z.boolean().optional(),
    /** Why the file cannot be restored, if it cannot. */
    unrestorable: z.string().nullish(),
    /**
     * Set when the file was changed while a command an earlier turn (not undone) left running in the
     * background was running: the change may be that command's, and restoring takes it back too. Says so
     * for people, naming the command.
     */
    background: z.string().nullish(),
  }),
);
export type CheckpointPreviewFile = z.infer<typeof CheckpointPreviewFile>;

/**
 * A turn being undone whose checkpoint failed (a disk error, say): what it changed cannot all be put
 * back. `reason` is the failure; `message` says it for people.
 */
export const CheckpointNotUndoable = lazySchema(() =>
  z.object({ turnId: z.string(), reason: z.string(), message: z.string() }),
);
export type CheckpointNotUndoable = z.infer<typeof CheckpointNotUndoable>;

/** `notUndoable`: the turns among those undone whose checkpoint failed (absent or empty: none). */
export const CheckpointPreviewResult = lazySchema(() =>
  z.object({
    files: z.array(CheckpointPreviewFile),
    notUndoable: z.array(CheckpointNotUndoable).optional(),
  }),
);
export type CheckpointPreviewResult = z.infer<typeof CheckpointPreviewResult>;

/** One file of the thread's last preview (`weft/checkpoints/preview` with the same turn): its texts. */
export const CheckpointPreviewFileParams = lazySchema(() =>
  z.object({ threadId: z.string(), beforeTurnId: z.string(), path: z.string() }),
);
export type CheckpointPreviewFileParams = z.infer<typeof CheckpointPreviewFileParams>;

/** The file's text now and after the restore, as in CheckpointPreviewFile. */
export const CheckpointPreviewFileResult = lazySchema(() =>
  z.object({ current: z.string().nullable(), restored: z.string().nullable(), binary: z.boolean() }),
);
export type CheckpointPreviewFileResult = z.infer<typeof CheckpointPreviewFileResult>;

/** Put back the files the thread's last restore replaced (files only; the history stays as it is). */
export const CheckpointRedoParams = lazySchema(() =>
  z.object({ threadId: z.string(), weftForce: z.boolean().nullish() }),
);
export type CheckpointRedoParams = z.infer<typeof CheckpointRedoParams>;
export const CheckpointRedoResult = lazySchema(() =>
  z.object({
    weftFiles: WeftFilesRestored,
    /** The turns brought back with the files (the redo of an undo that dropped them), oldest first. */
    weftTurnIds: z.array(z.string()).optional(),
  }),
);
export type CheckpointRedoResult = z.infer<typeof CheckpointRedoResult>;

/** The checkpoint store's size on disk (for Settings). */
export const CheckpointSizeParams = lazySchema(() =>
  z
    .object({
      /** Weft: on this environment (see `WeftEnvironmentName`). */
      weftEnvironment: WeftEnvironmentName,
    })
    .nullish(),
);
export type CheckpointSizeParams = z.infer<typeof CheckpointSizeParams>;
export const CheckpointSizeResult = lazySchema(() => z.object({ bytes: z.number() }));
export type CheckpointSizeResult = z.infer<typeof CheckpointSizeResult>;

/**
 * A hunk as the turn's diff (`turn/diff/updated`) numbers it: the numbers of its
 * `@@ -oldStart,oldLines +newStart,newLines @@` header (git's rules: an empty range starts at the line
 * before it).
 */
export const CheckpointHunkRange = lazySchema(() =>
  z.object({
    oldStart: z.int().nonnegative(),
    oldLines: z.int().nonnegative(),
    newStart: z.int().nonnegative(),
    newLines: z.int().nonnegative(),
  }),
);
export type CheckpointHunkRange = z.infer<typeof CheckpointHunkRange>;

/**
 * Weft: put back the lines of one hunk of what turn `turnId` changed in `path` (workspace-relative, as
 * the turn's diff names it), in the file as it is now; the rest of the file stays. The hunks are those of
 * the file before the turn against the file as the turn left it (3 lines of context). Refused with -32010
 * (`data.conflicts: [path]`), nothing written, when those lines are not as the agent left them (changed
 * since, or the hunk is undone already).
 */
export const CheckpointRevertHunkParams = lazySchema(() =>
  z.object({
    threadId: z.string().min(1),
    turnId: z.string().min(1),
    path: z.string().min(1),
    hunk: CheckpointHunkRange,
  }),
);
export type CheckpointRevertHunkParams = z.infer<typeof CheckpointRevertHunkParams>;
export const CheckpointRevertHunkResult = lazySchema(() => z.object({ path: z.string(), hunk: CheckpointHunkRange }));
export type CheckpointRevertHunkResult = z.infer<typeof CheckpointRevertHunkResult>;
