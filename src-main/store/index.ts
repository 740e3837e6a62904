// The thread store's front door: rollouts (the source of truth), the index, and the session recorder.
export { ThreadStore } from './thread-store';
export type {
  ForkEntry,
  ForkedThread,
  NewThreadMeta,
  OpenedThread,
  ReadThreadResult,
  RecordingOptions,
  ThreadRecorder,
  ThreadStoreOptions,
} from './store-types';
export type { SessionRecorder } from './recorder';
export type { LoadedThread, LoadOptions } from './loader';
export type { TurnDetails } from './turn-items';
export type { ApprovalRecord, PlanRecord } from './events';
export type { RecordedTurnContext, TurnContextInput } from './turn-context';
export type { RepairReport } from './repair';
export { RolloutWriteError, StoreError, StoreInputError, ThreadLockedError, ThreadNotFoundError } from './errors';
