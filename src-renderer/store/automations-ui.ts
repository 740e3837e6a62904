// The Automations screen's own small store: whether it is shown in place of the conversation, and which
// of its tabs (the automations, or the review inbox). Views open and close it; nothing else reads it.
import { create } from 'zustand';

export type AutomationsTab = 'automations' | 'inbox';

interface AutomationsUiState {
  /** The tab shown; null = the screen is closed (the conversation shows). */
  screen: AutomationsTab | null;
  /** Inbox items not opened yet, as last listed (null: not listed yet). */
  unseen: number | null;
}

export const useAutomationsUi = create<AutomationsUiState>(() => ({ screen: null, unseen: null }));

export function openAutomations(tab: AutomationsTab | null): void {
  useAutomationsUi.setState({ screen: tab });
}
