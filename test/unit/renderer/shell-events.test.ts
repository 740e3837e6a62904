// What the desktop shell asks of the page, through the real controller (the test speaks as the server):
// File → Open Folder with the window in front opens the folder among the window's projects and shows it,
// the project it showed staying open beside it; File → New Thread leaves the thread shown; a click on the
// notification of an automation's run opens the inbox on that run.
import { afterEach, expect, it } from 'vitest';
import { useAutomationsUi } from '../../../src-renderer/store/automations-ui';
import { handleShellEvent } from '../../../src-renderer/store/shell-events';
import { startController, type RunningController } from './fake-server';
import { CWD } from './fixtures';

let running: RunningController | undefined;
afterEach(() => {
  running?.dispose();
  running = undefined;
});

const OTHER = '/home/ada/other-project';
const nothing = (): void => undefined;

it('opens a folder the shell names among the window projects, and shows it', async () => {
  running = await startController();
  const { store, controller } = running;
  expect(store.getState().ui.openProjects).toEqual([CWD]);
  handleShellEvent(controller, { type: 'openProject', path: OTHER }, nothing);
  const { data, ui } = store.getState();
  expect({ cwd: data.cwd, open: ui.openProjects }).toEqual({ cwd: OTHER, open: [CWD, OTHER] });
  // Open again (Open Recent): shown, not added twice.
  handleShellEvent(controller, { type: 'openProject', path: CWD }, nothing);
  expect({ cwd: store.getState().data.cwd, open: store.getState().ui.openProjects }).toEqual({
    cwd: CWD,
    open: [CWD, OTHER],
  });
});

it('opens the review inbox on the run a notification of its end names', async () => {
  running = await startController();
  useAutomationsUi.setState({ screen: null, inboxRun: null });
  handleShellEvent(running.controller, { type: 'openInboxRun', automationId: 'deps', runId: 'run-7' }, nothing);
  expect(useAutomationsUi.getState()).toMatchObject({ screen: 'inbox', inboxRun: 'run-7' });
});
