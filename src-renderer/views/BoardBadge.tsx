// A thread's state on the board, as its sidebar row says it: what it does while it runs ("Running
// `npm test`", "Editing 3 files", "Thinking"), what it needs from the person, or how its unread turn ended.
import type { WeftThreadStep } from '../../src-preload/protocol';
import { baseName } from '../components/format';
import { Spinner } from '../components/Icon';
import type { BoardState } from '../store/board';

/** What a running turn does, for people: a verb, and the thing it acts on when there is one. */
export function stepText(step: WeftThreadStep | null): { verb: string; object: string | null; code: boolean } {
  if (step === null) return { verb: 'Running', object: null, code: false };
  switch (step.type) {
    case 'thinking':
      return { verb: 'Thinking', object: null, code: false };
    case 'command':
      return { verb: 'Running', object: step.command, code: true };
    case 'fileChange':
      return step.files === 1 && step.path !== null
        ? { verb: 'Editing', object: baseName(step.path), code: false }
        : { verb: 'Editing', object: `${step.files} files`, code: false };
    case 'mcpToolCall':
      return { verb: 'Calling', object: `${step.server} ${step.tool}`, code: false };
    case 'webSearch':
      return { verb: 'Searching the web', object: null, code: false };
    case 'message':
      return { verb: 'Writing', object: null, code: false };
    case 'compaction':
      return { verb: 'Compacting', object: null, code: false };
    case 'browser':
      return browserStepText(step.action, step.target);
  }
}

/** A browser action as the board says it: "Opening http://localhost:5173/", "Clicking button "Save"". */
function browserStepText(action: string, target: string): { verb: string; object: string | null; code: boolean } {
  const on = target === '' ? null : target;
  switch (action) {
    case 'open':
      return { verb: 'Opening', object: on, code: false };
    case 'click':
      return { verb: 'Clicking', object: on, code: false };
    case 'type':
      return { verb: 'Typing in', object: on ?? 'the page', code: false };
    case 'screenshot':
      return { verb: 'Taking a screenshot', object: null, code: false };
    case 'read':
      return { verb: 'Reading the page', object: null, code: false };
    case 'console':
      return { verb: "Reading the page's console", object: null, code: false };
    case 'evaluate':
      return { verb: 'Running a script in the page', object: null, code: false };
    case 'close':
      return { verb: 'Closing the browser', object: null, code: false };
    default:
      return { verb: 'Using the browser', object: null, code: false };
  }
}

/** The badge's words as one line (its tooltip, and what tests and screen readers read). */
export function badgeText(state: BoardState): string | null {
  switch (state.kind) {
    case 'needsYou':
      return state.why === 'approval' ? 'Needs approval' : state.why === 'question' ? 'Has a question' : 'Failed';
    case 'running': {
      const { verb, object } = stepText(state.step);
      return object === null ? verb : `${verb} ${object}`;
    }
    case 'done':
      return state.ended === 'interrupted' ? 'Stopped' : state.ended === 'failed' ? 'Failed' : 'Done';
    case 'idle':
      return state.failed ? 'Failed' : null;
  }
}

export function BoardBadge({ state }: { state: BoardState }) {
  const text = badgeText(state);
  if (text === null) return null;
  const tone =
    state.kind === 'needsYou'
      ? state.why === 'failed'
        ? 'failed'
        : 'waiting'
      : state.kind === 'running'
        ? 'running'
        : state.kind === 'done'
          ? 'done'
          : 'failed';
  const step = state.kind === 'running' ? stepText(state.step) : null;
  return (
    <span className={`thread-badge is-${tone}`} title={text}>
      {state.kind === 'running' ? <Spinner size={10} /> : <span className="dot" />}
      {step === null ? (
        <span className="badge-text">{text}</span>
      ) : (
        <span className="badge-text">
          {step.verb}
          {step.object !== null && ' '}
          {step.object !== null && (step.code ? <code>{step.object}</code> : step.object)}
        </span>
      )}
    </span>
  );
}
