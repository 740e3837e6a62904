// The one way a thread's session is built, new or continued: `weft exec` and the app server's
// thread/start, thread/resume and thread/fork all come here. A continued thread brings its saved state
// (history, turns, token usage, what the model was last told about cwd and permissions) and, when the
// caller keeps them, the settings its last turn ran with.
import type { AskForApproval, SandboxMode, Turn } from '../../src-preload/protocol';
import type { KeyStore } from '../config/key-store';
import type { LoadedThread } from '../store/loader';
import { createSession, sandboxPolicyFor, type CreateSessionInput } from './create-session';
import { keyedModelClient } from './keyed-model-client';
import type { Session } from './session';
import type { SessionOptions, TurnOverrides, TurnRecord } from './types';

export interface SessionBuildInput extends Omit<CreateSessionInput, 'initial' | 'overrides'> {
  /** The saved thread being continued (resume, fork); absent or null for a new thread. */
  saved?: LoadedThread | null;
  /**
   * Settings asked for now. With `keepSaved`, a continued thread keeps the model, approval policy and
   * sandbox its last turn ran with for what is not asked; otherwise the config decides.
   */
  asked?: { model?: string; approvalPolicy?: AskForApproval; sandbox?: SandboxMode };
  /**
   * Keep the saved settings (see `asked`), and whether the thread may ask questions (a run's thread keeps
   * `questions = false` over a resume); `modelSetInConfig` / `questionsSetInConfig` say the per-thread
   * config override sets that key now, which wins.
   */
  keepSaved?: { modelSetInConfig: boolean; questionsSetInConfig: boolean };
  /** Find the API key at each request (a key saved in Settings applies at the next turn); else the provider's key. */
  keyStore?: KeyStore;
  /** Settings that win over the others (a sub-agent's: its parent's cwd, sandbox and approvals). */
  exact?: TurnOverrides;
}

/** A session for a new or continued thread. */
export function buildSession(input: SessionBuildInput): Session {
  const { saved, asked = {}, keepSaved, keyStore, exact, ...rest } = input;
  const last = saved?.lastTurnContext ?? null;
  const savedApproval = last && isApproval(last.approvalPolicy) ? last.approvalPolicy : undefined;
  const keep = keepSaved !== undefined && last !== null;
  return createSession({
    ...rest,
    initial: saved ? initialState(saved) : undefined,
    modelClient: input.modelClient ?? (keyStore ? keyedModelClient(input.provider, keyStore) : undefined),
    overrides: {
      model: asked.model ?? (keep && !keepSaved.modelSetInConfig ? last.model : undefined),
      approvalPolicy: asked.approvalPolicy ?? (keep ? savedApproval : undefined),
      sandboxPolicy: asked.sandbox
        ? sandboxPolicyFor(asked.sandbox, input.config)
        : keep
          ? (last.sandboxPolicy ?? undefined)
          : undefined,
      questions: keep && !keepSaved.questionsSetInConfig && last.questions !== null ? last.questions : undefined,
      ...exact,
    },
  });
}

/** A saved thread's state as a session starts from it. */
export function initialState(saved: LoadedThread): NonNullable<SessionOptions['initial']> {
  const last = saved.lastTurnContext;
  return {
    history: saved.history,
    ...(saved.loadHistory ? { loadHistory: saved.loadHistory } : {}),
    olderTurnsCursor: saved.olderTurnsCursor,
    turns: turnRecords(saved.turns),
    tokenUsage: saved.tokenUsage,
    usageByModel: saved.usageByModel,
    contextRef:
      last && isApproval(last.approvalPolicy) && last.sandboxPolicy
        ? { cwd: last.cwd, approvalPolicy: last.approvalPolicy, sandbox: JSON.stringify(last.sandboxPolicy) }
        : null,
  };
}

/** Loaded turns (items inside) as the session keeps them (items beside the turn). */
function turnRecords(turns: readonly Turn[]): TurnRecord[] {
  return turns.map((turn) => ({ turn: { ...turn, items: [] }, items: turn.items }));
}

function isApproval(v: string): v is AskForApproval {
  return v === 'untrusted' || v === 'on-failure' || v === 'on-request' || v === 'never';
}
