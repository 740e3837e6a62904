// What a running turn is doing now (`weftStep` of an active ThreadStatus), read from the items the turn has
// open: lists show it for threads nobody there watches ("Running `npm test`", "Editing 3 files").
import type { ThreadItem, WeftThreadStep } from '../../src-preload/protocol';

/** The step an open item stands for; null for items that are no step of their own (reasoning, plans…). */
function stepOf(item: ThreadItem): WeftThreadStep | null {
  switch (item.type) {
    case 'commandExecution':
      return { type: 'command', command: item.command };
    case 'fileChange':
      return { type: 'fileChange', files: item.changes.length, path: item.changes[0]?.path ?? null };
    case 'mcpToolCall':
      return { type: 'mcpToolCall', server: item.server, tool: item.tool };
    case 'webSearch':
      return { type: 'webSearch', query: item.query };
    case 'agentMessage':
      return { type: 'message' };
    case 'contextCompaction':
      return { type: 'compaction' };
    case 'userMessage':
    case 'hookPrompt':
    case 'reasoning':
    case 'plan':
    case 'imageView':
    case 'enteredReviewMode':
    case 'exitedReviewMode':
      return null;
    case 'browserAction':
      return { type: 'browser', action: item.action, target: item.target };
    case 'collabAgentToolCall':
      return null; // A call to a sub-agent: the sub-agent's own row says what it does.
  }
}

/**
 * The step of a running turn from its open items (in the order they started): the one started last that
 * is a step, else `thinking` (the model is working on its next move).
 */
export function currentStep(open: Iterable<ThreadItem> | undefined): WeftThreadStep {
  let step: WeftThreadStep = { type: 'thinking' };
  for (const item of open ?? []) step = stepOf(item) ?? step;
  return step;
}
