// E2E: a long thread opens on its newest turns (as the server sends them); wheeling up to the top of the
// conversation loads the older ones and keeps the view in place.
import { describe, expect, it } from 'vitest';
import { WsRpcClient } from '../support/rpc-client';
import { answerTurn } from '../support/sse';
import { clickCentre, wheelIntoView, wheelUpUntilAttached } from '../support/mouse';
import { conversation, SCREENSHOT_SIZES, startE2e } from '../support/weft-serve';

const TURNS = 104;

describe('long threads', () => {
  it(
    'loads the turns before the newest 100 on reaching the top, keeping the view on the turn it showed',
    { timeout: 120_000 },
    async () => {
      const e2e = await startE2e();
      const { page, mock } = e2e;
      // The thread is made over the protocol (a hundred turns by hand would be slow), then opened in the UI.
      const served = new URL(e2e.url);
      const client = await WsRpcClient.connect(
        `ws://${served.host}/ws?token=${served.searchParams.get('token') ?? ''}`,
      );
      await client.initialize();
      const { thread } = await client.request<{ thread: { id: string } }>('thread/start', { cwd: e2e.workspace.dir });
      mock.enqueueMany(Array.from({ length: TURNS }, (_, i) => answerTurn(`Answer ${i}.`)));
      for (let i = 0; i < TURNS; i++) {
        const from = client.received.length;
        const { turn } = await client.request<{ turn: { id: string } }>('turn/start', {
          threadId: thread.id,
          input: [{ type: 'text', text: `question ${i}` }],
        });
        await client.notification('turn/completed', (p) => (p['turn'] as { id: string }).id === turn.id, from);
      }
      await client.close();
      // Weft starts again (the thread is no longer in memory) and a fresh page opens it, as a person would.
      await page.goto(await e2e.startServeAgain(['--port', '0', '--token', 'e2e-token']));
      const threads = page.getByRole('navigation', { name: 'Threads' });
      await clickCentre(page, threads.getByRole('button', { name: 'question 0', exact: true }));
      const rows = conversation(page);
      await rows.getByText(`Answer ${TURNS - 1}.`, { exact: true }).waitFor();
      expect(await rows.getByText('question 3', { exact: true }).count()).toBe(0);

      // Wheeling up: the first row (the control that loads older turns) comes near the view, and the turns
      // before the newest 100 load by themselves. All came (fewer than a page): the control is gone, and
      // the view stayed on the turn that was first, now below the loaded ones.
      const older = rows.getByRole('button', { name: 'Show earlier turns' });
      const anchor = rows.getByText('question 4', { exact: true });
      // The control may come and go between two looks (the older turns load as soon as it is near): the wheel
      // turns until it, or the turns it loads, are in the page.
      await wheelUpUntilAttached(page, older.or(rows.getByText('question 3', { exact: true })), rows);
      await rows.getByText('question 3', { exact: true }).waitFor({ state: 'attached' });
      await older.waitFor({ state: 'detached' });
      // The list measures the rows it just added and then puts the view back on the anchor; on a busy
      // machine that can be a frame or two after the control leaves, so the geometry is read until it
      // holds (or 2 s have passed).
      const inView = async (): Promise<boolean> => {
        const view = await rows.boundingBox();
        const shown = await anchor.boundingBox();
        return (
          view !== null && shown !== null && shown.y >= view.y - 1 && shown.y + shown.height <= view.y + view.height + 1
        );
      };
      await expect.poll(inView, { timeout: 2_000 }).toBe(true);
      const first = rows.getByText('question 0', { exact: true });
      await wheelUpUntilAttached(page, first, rows);
      await wheelIntoView(page, first, rows);
      for (const size of SCREENSHOT_SIZES) {
        await page.setViewportSize(size);
        await e2e.screenshot(`long-thread-first-turn-${size.width}x${size.height}`);
      }
    },
  );
});
