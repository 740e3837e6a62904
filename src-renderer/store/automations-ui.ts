// The Automations screen's own small store: whether it is shown in place of the conversation, and which
// of its tabs (the automations, or the review inbox), and the inbox's run shown. Views open and close it
// (and a click on a notification of a run's end, through the shell); nothing else reads it.
import { create } from 'zustand';

export type AutomationsTab = 'automations' | 'inbox';

interface AutomationsUiState {
  /** The tab shown; null = the screen is closed (the conversation shows). */
  screen: AutomationsTab | null;
  /** Inbox items not opened yet, as last listed (null: not listed yet). */
  unseen: number | null;
  /** The run the inbox shows (its id); null: the newest unread one, else the newest. */
  inboxRun: string | null;
}

export const useAutomationsUi = create<AutomationsUiState>(() => ({ screen: null, unseen: null, inboxRun: null }));

/** Shows a tab (or closes the screen); the inbox then shows its newest unread run again. */
export function openAutomations(tab: AutomationsTab | null): void {
  useAutomationsUi.setState({ screen: tab, inboxRun: null });
}

/** Opens the inbox on run `runId` (shown once the inbox lists it). */
export function openInboxRun(runId: string): void {
  useAutomationsUi.setState({ screen: 'inbox', inboxRun: runId });
}
