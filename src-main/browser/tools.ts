// The `browser` tools as the model sees them: one Responses namespace `browser` holding open, screenshot,
// click, type, read, console, evaluate and close, or flat `browser__<name>` functions for Chat Completions
// providers. Each call is a `browserAction` item. Without a browser on the machine no tool is offered, and
// the model is told why once.
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { z } from 'zod';
import { assertNever, BrowserAction, type BrowserActionItem, type ContentItem } from '../../src-preload/protocol';
import type { FunctionToolSpec, ToolSpec } from '../model/types';
import { networkAllowed } from '../safety/sandbox/network';
import type { ToolSource } from '../tools/registry';
import { functionTool, type ToolContext, type ToolHandler, type ToolResult } from '../tools/types';
import { errorMessage } from '../util/errors';
import { newItemId } from '../util/ids';
import { cut, describeTarget, evaluate, locate, pageSummary, readPage, screenshot } from './actions';
import { askEvaluate, askOrigin } from './approvals';
import type { BrowserLocation } from './locate';
import type { BrowserTimeouts } from './launch-settings';
import { LiveView } from './live-view';
import { BrowserSession } from './session';
import { BROWSER_SPECS } from './specs';

export const BROWSER_NAMESPACE = 'browser';

const Role = z.string().min(1).optional();
const TargetArgs = z.object({
  role: Role,
  name: z.string().optional(),
  selector: z.string().min(1).optional(),
  text: z.string().optional(),
});
const ARGS = {
  open: z.object({ url: z.string().min(1) }),
  screenshot: z.object({ full_page: z.boolean().optional(), selector: z.string().min(1).optional() }),
  click: TargetArgs,
  type: z.object({
    role: Role,
    name: z.string().optional(),
    selector: z.string().min(1).optional(),
    text: z.string(),
    submit: z.boolean().optional(),
  }),
  read: z.object({ selector: z.string().min(1).optional() }),
  console: z.object({}),
  evaluate: z.object({ expression: z.string().min(1) }),
  close: z.object({}),
} satisfies Record<BrowserAction, z.ZodType>;

export interface BrowserToolsInput {
  /** Where the browser is (resolved once per thread). */
  location: Promise<BrowserLocation>;
  wireApi: 'responses' | 'chat';
  /** Folder screenshots are written to (beside the rollout for a saved thread). */
  screenshotDir: string;
  /** Tells the model something once, before its next request (why the tools are missing). */
  tell: (text: string) => void;
  /** How long the browser waits for a load, an action and a page's answer. */
  timeouts: BrowserTimeouts;
}

/** What one call leaves: the model's output, and for the item the target, the screenshot and the URL. */
interface ActionOutcome {
  output: string;
  image?: { path: string; width: number; height: number };
}

/** The model-facing note when no browser can be used. */
export function missingBrowserNote(reason: string): string {
  return `The browser tools are not available in this thread: ${reason}.`;
}

/** The thread's browser tools, the browser session they drive (disposed with the thread), and its live view. */
export function browserToolSource(input: BrowserToolsInput): {
  source: ToolSource;
  dispose: () => Promise<void>;
  live: LiveView;
} {
  const live = new LiveView();
  let located: BrowserLocation | null = null;
  let session: BrowserSession | null = null;
  let told = false;
  /** The call running now: origin questions asked mid-navigation go to its turn. */
  let active: { ctx: ToolContext; ask: (origin: string) => Promise<boolean> } | null = null;

  /** The latest call's context: the workspace and network setting of the turn the browser now serves. */
  let latest: ToolContext | null = null;

  const sessionFor = (executable: string): BrowserSession => {
    session ??= new BrowserSession({
      executable,
      rules: () => ({
        workspace: latest?.cwd ?? '/nonexistent',
        network: latest !== null && networkAllowed(latest.policy.sandboxPolicy),
      }),
      asker: () => active?.ask ?? null,
      timeouts: input.timeouts,
      live,
    });
    return session;
  };

  const run = async (action: BrowserAction, args: Record<string, unknown>, ctx: ToolContext): Promise<ToolResult> => {
    const item: BrowserActionItem = {
      type: 'browserAction',
      id: newItemId(),
      action,
      status: 'inProgress',
      target: targetOf(action, args),
      url: null,
      output: null,
      error: null,
      screenshot: null,
      durationMs: null,
    };
    const { threadId, turnId } = ctx;
    ctx.emit({ method: 'item/started', params: { threadId, turnId, item } });
    const started = Date.now();
    const where = located;
    latest = ctx;
    let url: string | null = null;
    let browser: BrowserSession | null = null;
    try {
      if (where === null || !where.found) throw new Error('no browser is available');
      browser = sessionFor(where.path);
      active = { ctx, ask: (origin) => askOrigin(ctx, origin) };
      const outcome = await act(browser, action, args, ctx, item.id, input.screenshotDir, (u) => (url = u));
      ctx.emit({
        method: 'item/completed',
        params: {
          threadId,
          turnId,
          item: {
            ...item,
            status: 'completed',
            url,
            output: outcome.output,
            screenshot:
              outcome.image === undefined
                ? null
                : { path: outcome.image.path, width: outcome.image.width, height: outcome.image.height },
            durationMs: Date.now() - started,
          },
        },
      });
      if (outcome.image === undefined) return { output: outcome.output, success: true };
      const content: ContentItem[] = [
        { type: 'input_text', text: outcome.output },
        // The file, not its bytes: the history and the rollout keep the URL, requests read it (model/stored-images.ts).
        { type: 'input_image', image_url: pathToFileURL(outcome.image.path).href },
      ];
      return { output: content, success: true };
    } catch (error) {
      const message = ctx.signal.aborted
        ? 'the turn was interrupted'
        : ((await browser?.busyAfterTimeout(error)) ?? errorMessage(error));
      ctx.emit({
        method: 'item/completed',
        params: {
          threadId,
          turnId,
          item: { ...item, status: 'failed', url, error: message, durationMs: Date.now() - started },
        },
      });
      if (ctx.signal.aborted) throw error;
      return { output: `browser ${action} failed: ${message}`, success: false };
    } finally {
      active = null;
    }
  };

  const handlers = new Map<string, ToolHandler>(
    BrowserAction.options.map((action) => {
      const spec = BROWSER_SPECS[action];
      return [
        `${BROWSER_NAMESPACE}__${action}`,
        functionTool({
          name: `${BROWSER_NAMESPACE}__${action}`,
          // One page, one action at a time, in call order.
          parallel: false,
          args: ARGS[action],
          spec: { ...spec, name: `${BROWSER_NAMESPACE}__${action}` },
          handle: (args: Record<string, unknown>, _call, ctx) => run(action, args, ctx),
        }),
      ];
    }),
  );

  const source: ToolSource = {
    handler: (name) => (located?.found === true ? handlers.get(name) : undefined),
    specs: (): ToolSpec[] => {
      if (located?.found !== true) return [];
      const tools = BrowserAction.options.map((a): FunctionToolSpec => BROWSER_SPECS[a]);
      if (input.wireApi === 'chat') return tools.map((t) => ({ ...t, name: `${BROWSER_NAMESPACE}__${t.name}` }));
      return [
        {
          type: 'namespace',
          name: BROWSER_NAMESPACE,
          description:
            'A headless browser to look at and drive web pages the agent is building (its dev server on localhost, or files in the workspace). Address elements by accessible role and name first (as `read` shows them).',
          tools,
        },
      ];
    },
    prepare: async () => {
      located = await input.location;
      if (!located.found && !told) {
        told = true;
        input.tell(missingBrowserNote(located.reason));
      }
    },
  };
  return {
    source,
    dispose: async () => {
      await session?.dispose();
      await live.dispose();
    },
    live,
  };
}

function targetOf(action: BrowserAction, args: Record<string, unknown>): string {
  const str = (key: string): string | undefined => (typeof args[key] === 'string' ? args[key] : undefined);
  switch (action) {
    case 'open':
      return str('url') ?? '';
    case 'screenshot':
      return str('selector') ?? (args['full_page'] === true ? 'full page' : 'viewport');
    case 'click':
      return describeTarget({ role: str('role'), name: str('name'), selector: str('selector'), text: str('text') });
    case 'type': {
      const where = describeTarget({ role: str('role'), name: str('name'), selector: str('selector') });
      return `${JSON.stringify(str('text') ?? '')}${where === '' ? '' : ` into ${where}`}`;
    }
    case 'read':
      return str('selector') ?? '';
    case 'evaluate':
      return str('expression') ?? '';
    case 'console':
    case 'close':
      return '';
  }
}

async function act(
  browser: BrowserSession,
  action: BrowserAction,
  args: Record<string, unknown>,
  ctx: ToolContext,
  itemId: string,
  screenshotDir: string,
  setUrl: (url: string | null) => void,
): Promise<ActionOutcome> {
  const str = (key: string): string | undefined => (typeof args[key] === 'string' ? args[key] : undefined);
  if (action === 'close') {
    await browser.close();
    return { output: 'The browser was closed (its profile deleted); `open` starts a fresh one.' };
  }
  if (action === 'console') {
    const lines = browser.log.drain();
    return { output: lines.length === 0 ? 'Nothing was logged since the last call.' : cut(lines.join('\n')) };
  }
  const notes: string[] = [];
  const withNotes = (text: string): string => [...notes, text].join('\n');
  if (action === 'open') {
    const url = str('url') ?? '';
    const verdict = browser.verdict(url);
    if (verdict.kind === 'refuse') throw new Error(verdict.reason);
    if (verdict.kind === 'ask') {
      if (!(await askOrigin(ctx, verdict.origin)))
        throw new Error(`refused to open ${url}: the user did not allow the browser to reach ${verdict.origin}`);
      browser.approveOrigin(verdict.origin);
    }
    const page = await browser.page(notes, { replaceBusy: true });
    try {
      const { status } = await browser.navigate(url);
      setUrl(page.url());
      return {
        output: withNotes(
          `Opened ${await pageSummary(page, browser.timeouts)}${status === null ? '' : ` (HTTP ${status})`}.`,
        ),
      };
    } finally {
      setUrl(page.isClosed() ? null : page.url());
    }
  }
  const page = await browser.page(notes);
  setUrl(page.url());
  try {
    switch (action) {
      case 'screenshot': {
        const shot = await screenshot(browser, page, {
          fullPage: args['full_page'] === true,
          selector: str('selector'),
        });
        await mkdir(screenshotDir, { recursive: true });
        const path = join(screenshotDir, `browser-${itemId}.png`);
        await writeFile(path, shot.png);
        const cutNote = shot.cut ? ` The page is taller: only its top ${shot.area.height} px were captured.` : '';
        return {
          output: withNotes(
            `Screenshot of ${await pageSummary(page, browser.timeouts)}: ${shot.width}×${shot.height} px.${cutNote}`,
          ),
          image: {
            path,
            width: shot.width,
            height: shot.height,
          },
        };
      }
      case 'click': {
        const target = { role: str('role'), name: str('name'), selector: str('selector'), text: str('text') };
        await (await locate(page, target)).click();
        await page.waitForLoadState('load').catch(() => undefined);
        return {
          output: withNotes(
            `Clicked ${describeTarget(target)}; the page is ${await pageSummary(page, browser.timeouts)}.`,
          ),
        };
      }
      case 'type': {
        const target = { role: str('role'), name: str('name'), selector: str('selector') };
        const field =
          target.role === undefined && target.selector === undefined
            ? page.locator('*:focus')
            : await locate(page, target);
        await field.fill(str('text') ?? '');
        if (args['submit'] === true) {
          await field.press('Enter');
          await page.waitForLoadState('load').catch(() => undefined);
        }
        const where = describeTarget(target);
        return {
          output: withNotes(
            `Typed into ${where === '' ? 'the focused element' : where}${args['submit'] === true ? ' and pressed Enter' : ''}; the page is ${await pageSummary(page, browser.timeouts)}.`,
          ),
        };
      }
      case 'read':
        return { output: withNotes(await readPage(page, str('selector'), browser.timeouts)) };
      case 'evaluate': {
        const expression = str('expression') ?? '';
        const verdict = await askEvaluate(ctx, expression, browser);
        if (verdict !== null) throw new Error(verdict);
        return { output: withNotes(await evaluate(page, expression, browser.timeouts)) };
      }
    }
    return assertNever(action);
  } finally {
    setUrl(page.isClosed() ? null : page.url());
  }
}
