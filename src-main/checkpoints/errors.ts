import { displayPath } from '../../src-preload/protocol';

/** Files changed since the agent left them: a restore would overwrite someone else's work. */
export class CheckpointConflictError extends Error {
  constructor(readonly conflicts: string[]) {
    super(
      `Not restored: ${conflicts.length === 1 ? 'this file was' : 'these files were'} changed after the agent wrote ${conflicts.length === 1 ? 'it' : 'them'}: ${conflicts.map(displayPath).join(', ')}. ` +
        'Nothing was written. Keep your versions, or restore with force (your versions are saved as a checkpoint first).',
    );
    this.name = 'CheckpointConflictError';
  }
}

/** A restore or fork that cannot be done as asked (nothing to restore, a path that is not safe...). */
export class CheckpointError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'CheckpointError';
  }
}
