// E2E: a thread archived, let go (another thread is used meanwhile), opened from the Archived list,
// unarchived and sent a message runs its turn: the window resumes it before the first send. At 1400×900 and
// 900×700, by mouse and keyboard through `weft serve`.
import { afterEach, describe, it } from 'vitest';
import { clickCentre } from '../support/mouse';
import { answerTurn } from '../support/sse';
import { conversation, sendMessage, startE2e } from '../support/weft-serve';
import type { E2e } from '../support/weft-serve';

let e2e: E2e | undefined;

afterEach(async () => {
  await e2e?.close();
  e2e = undefined;
});

describe.each([
  { width: 1400, height: 900 },
  { width: 900, height: 700 },
])('an unarchived thread at $width×$height', (viewport) => {
  it('opened from the Archived list, unarchived, takes a new message', { timeout: 300_000 }, async () => {
    e2e = await startE2e({ viewport });
    const { page, mock } = e2e;
    const threads = page.getByRole('navigation', { name: 'Threads' });
    mock.enqueueMany([answerTurn('First reply.'), answerTurn('Other reply.'), answerTurn('Back from the archive.')]);
    await sendMessage(page, 'Keep this one');
    await conversation(page).getByText('First reply.').waitFor();

    await clickCentre(page, threads.getByRole('button', { name: 'Actions for Keep this one' }));
    await clickCentre(page, page.getByRole('menuitem', { name: 'Archive' }));
    await page.getByText('This thread is archived.').waitFor();

    // Another thread is used meanwhile: the archived one is let go.
    await clickCentre(page, page.getByRole('button', { name: 'New thread' }));
    await sendMessage(page, 'Something else');
    await conversation(page).getByText('Other reply.').waitFor();

    await clickCentre(page, threads.getByRole('button', { name: /^Archived/ }));
    await clickCentre(
      page,
      threads
        .getByRole('list', { name: 'Archived threads' })
        .getByRole('button', { name: 'Keep this one', exact: true }),
    );
    await page.getByText('This thread is archived.').waitFor();
    await conversation(page).getByText('First reply.').waitFor();
    await e2e.screenshot(`unarchive-archived-${viewport.width}`);

    await clickCentre(page, page.getByRole('button', { name: 'Unarchive' }));
    await page.getByText('This thread is archived.').waitFor({ state: 'detached' });
    await sendMessage(page, 'Still with me?');
    await conversation(page).getByText('Back from the archive.').waitFor();
    await e2e.screenshot(`unarchive-continued-${viewport.width}`);
  });
});
