// The questions the `browser` tools ask (as MCP tool approvals are asked: `item/tool/requestUserInput`):
// whether `evaluate` may run a script in the page, and whether the page may reach an origin beyond
// loopback while the network is on. "Allow for this session" is remembered until the thread ends.
import { BROWSER_APPROVAL, ServerRequests } from '../../src-preload/protocol';
import type { ToolContext } from '../tools/types';

const { allow: ALLOW, allowForSession: ALLOW_SESSION, decline: DECLINE } = BROWSER_APPROVAL;

type Answer = 'once' | 'session' | 'declined';

/** The browser sessions whose user allowed `evaluate` for the rest of the thread. */
const evaluateAllowed = new WeakMap<object, true>();

async function ask(ctx: ToolContext, question: string, sessionNote: string): Promise<Answer> {
  const raw = await ctx.sendRequest(
    {
      method: 'item/tool/requestUserInput',
      params: {
        threadId: ctx.threadId,
        turnId: ctx.turnId,
        itemId: `browser-${ctx.turnId}`,
        questions: [
          {
            id: BROWSER_APPROVAL.questionId,
            header: BROWSER_APPROVAL.header,
            question,
            isOther: false,
            isSecret: false,
            options: [
              { label: ALLOW, description: 'Allow it this time' },
              { label: ALLOW_SESSION, description: sessionNote },
              { label: DECLINE, description: 'Do not allow it; the agent is told' },
            ],
          },
        ],
      },
    },
    ctx.signal,
  );
  const parsed = ServerRequests['item/tool/requestUserInput'].result.safeParse(raw);
  const choice = parsed.success ? parsed.data.answers[BROWSER_APPROVAL.questionId]?.answers[0] : undefined;
  return choice === ALLOW ? 'once' : choice === ALLOW_SESSION ? 'session' : 'declined';
}

/**
 * Whether the browser may reach `origin` (the network being on): asked, except under the "never" approval
 * policy, where it may (as commands then reach the network unasked).
 */
export async function askOrigin(ctx: ToolContext, origin: string): Promise<boolean> {
  if (ctx.policy.approvalPolicy === 'never') return true;
  const answer = await ask(
    ctx,
    `Allow the agent's browser to load pages and resources from ${origin}?`,
    `Allow ${origin} until the thread is closed`,
  );
  return answer !== 'declined';
}

/**
 * Null when `expression` may run in the page, else why not. Asked as a command is: not under the "never"
 * approval policy, and not again once allowed for the session.
 */
export async function askEvaluate(ctx: ToolContext, expression: string, memory: object): Promise<string | null> {
  if (ctx.policy.approvalPolicy === 'never' || evaluateAllowed.has(memory)) return null;
  const shown = expression.length > 400 ? `${expression.slice(0, 400)}…` : expression;
  const answer = await ask(
    ctx,
    `Allow the agent to run this script in the page?\n${shown}`,
    'Run scripts in the page without asking until the thread is closed',
  );
  if (answer === 'session') evaluateAllowed.set(memory, true);
  return answer === 'declined' ? 'the user declined to run the script in the page' : null;
}
