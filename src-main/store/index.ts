// The thread store's front door: rollouts (the source of truth), the index, and the session recorder.
export { ThreadStore } from './thread-store';

export type { SessionRecorder } from './recorder';

export type { TurnDetails } from './turn-items';

export { RolloutWriteError, StoreError, ThreadLockedError, ThreadNotFoundError } from './errors';
