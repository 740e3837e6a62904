// The composer's `/` commands: one table of what each is called, what the menu says of it, whether the
// server offers what it needs, and what it does. The menu lists the available ones; a message that is
// only `/name` runs the command instead of being sent.
import { isClientRequestMethod } from '../../../src-preload/protocol';
import { openRestore } from '../../store/checkpoint-ui';
import type { Controller } from '../../store/controller';
import type { Conversation } from '../../store/state';
import type { MenuEntry } from './ComposerMenus';

/** What a command may use: the thread shown and the composer around it. */
export interface SlashContext {
  controller: Controller;
  /** The thread shown; null before the first message of a new thread. */
  threadId: string | null;
  conversation: Conversation | undefined;
  /** A turn runs in the thread. */
  running: boolean;
  /** Opens the `/status` panel above the composer. */
  showStatus(): void;
  /** Hands the focus to a picker under the composer (and opens it where the browser can). */
  focusPicker(picker: 'model' | 'approvals'): void;
}

export interface SlashCommand {
  name: string;
  detail: string;
  /** Whether the server offers what the command needs (hidden otherwise). */
  available: boolean;
  run(ctx: SlashContext): Promise<void> | void;
}

/** What the model is asked for by `/init`. */
const INIT_PROMPT = [
  'Create a file named AGENTS.md at the root of this project: a short guide for coding agents working here.',
  'Look at the project first (its layout, build and test commands, languages, conventions, anything unusual),',
  'then write sections on the layout, how to build and run tests, the code style, and what to check before a change is done.',
  'Keep it under 300 lines, factual and specific to this project. If an AGENTS.md already exists, improve it rather than replace it.',
].join(' ');

const failure = (e: unknown): string => (e instanceof Error ? e.message : String(e));

/** Every `/` command, in the menu's order; those whose method the server lacks are hidden. */
export const SLASH_COMMANDS: readonly SlashCommand[] = [
  {
    name: 'review',
    detail: 'Review the uncommitted changes',
    available: isClientRequestMethod('review/start'),
    async run({ controller, threadId }) {
      if (threadId === null) {
        controller.toast('Nothing to review in: start a thread first.', 'info');
        return;
      }
      await controller
        .request('review/start', { threadId, target: { type: 'uncommittedChanges' } })
        .catch((e: unknown) => controller.toast(`Could not start the review: ${failure(e)}`));
    },
  },
  {
    name: 'compact',
    detail: 'Summarize the thread to free context',
    available: true,
    async run({ controller, threadId }) {
      if (threadId === null) {
        controller.toast('Nothing to compact yet: start a thread first.', 'info');
        return;
      }
      await controller
        .request('thread/compact/start', { threadId })
        .catch((e: unknown) => controller.toast(`Could not compact: ${failure(e)}`));
    },
  },
  {
    name: 'undo',
    detail: 'Undo the last turn and put its files back',
    available: true,
    run({ controller, threadId, conversation, running }) {
      const last = conversation?.turnIds[conversation.turnIds.length - 1];
      // The same preview as the turn's "Undo this turn": what would change, conflicts, then confirm.
      if (threadId === null || last === undefined) controller.toast('Nothing to undo yet.', 'info');
      else if (running) controller.toast('Wait for the turn to finish (or stop it) before undoing it.', 'info');
      else openRestore({ threadId, beforeTurnId: last, kind: 'undo', dropped: 1 });
    },
  },
  {
    name: 'fork',
    detail: 'Continue in a copy of this thread',
    available: true,
    async run({ controller, threadId }) {
      if (threadId === null) controller.toast('Nothing to fork yet: start a thread first.', 'info');
      else await controller.fork(threadId);
    },
  },
  { name: 'model', detail: 'Choose the model', available: true, run: (ctx) => ctx.focusPicker('model') },
  {
    name: 'approvals',
    detail: 'Choose when the agent asks first',
    available: true,
    run: (ctx) => ctx.focusPicker('approvals'),
  },
  {
    name: 'init',
    detail: 'Write an AGENTS.md for this project',
    available: true,
    async run({ controller }) {
      await controller.send([{ type: 'text', text: INIT_PROMPT }]);
    },
  },
  { name: 'status', detail: 'Tokens, context used and limits', available: true, run: (ctx) => ctx.showStatus() },
  {
    name: 'mcp',
    detail: 'MCP servers and their tools',
    available: isClientRequestMethod('mcpServerStatus/list'),
    run: ({ controller }) => controller.openSettings('mcp'),
  },
  {
    name: 'diff',
    detail: 'Show the changes of the last turn',
    available: true,
    run({ controller, threadId, conversation }) {
      const withDiff = conversation?.turnIds.findLast((id) => conversation.turns[id]?.diff);
      if (threadId === null || withDiff === undefined) controller.toast('No changes in this thread yet.', 'info');
      else controller.showTurnDiff(threadId, withDiff);
    },
  },
];

/** The menu's entries for `/query`: the available commands whose name starts with it. */
export function slashEntries(query: string): MenuEntry[] {
  const q = query.toLowerCase();
  return SLASH_COMMANDS.filter((c) => c.available && c.name.startsWith(q)).map((c) => ({
    key: c.name,
    name: `/${c.name}`,
    detail: c.detail,
  }));
}

/** The command a whole message names (`/compact`), if it is one the menu offers. */
export function slashCommandOf(text: string): string | null {
  const m = /^\/(\w+)\s*$/.exec(text.trim());
  const name = m?.[1];
  return name !== undefined && SLASH_COMMANDS.some((c) => c.available && c.name === name) ? name : null;
}

/** Runs the command named `name` (a menu entry's key or what `slashCommandOf` found). */
export async function runSlashCommand(name: string, ctx: SlashContext): Promise<void> {
  const command = SLASH_COMMANDS.find((c) => c.name === name);
  if (command === undefined) {
    ctx.controller.toast(`/${name} is not available on this server.`, 'info');
    return;
  }
  await command.run(ctx);
}
