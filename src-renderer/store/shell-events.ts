// What the desktop shell asks of the page (see `ShellEvent`): a click on an OS notification opens its
// thread with the waiting request focused; File → New Thread starts one; File → Open Folder / Open Recent
// opens the folder among this window's projects (one window holds several) and shows it; a click on the
// notification of an automation's run that ended opens the review inbox on that run.
import type { ShellEvent } from '../../src-preload/protocol/bridge-api';
import { openInboxRun } from './automations-ui';
import type { Controller } from './controller';

export function handleShellEvent(controller: Controller, event: ShellEvent, focusWaitingRequest: () => void): void {
  switch (event.type) {
    case 'focusThread':
      void controller.selectThread(event.threadId).then(focusWaitingRequest);
      return;
    case 'newThread':
      controller.newThread();
      return;
    case 'openProject':
      controller.openProject(event.path);
      return;
    case 'openInboxRun':
      openInboxRun(event.runId);
      return;
  }
}
