// The terminal panel's state, shared by its header button, the panel and Ctrl+`: open or hidden, and
// whether it has been opened once (then it stays mounted, so its shells live on while hidden).
import { useStore } from 'zustand';
import { createStore } from 'zustand/vanilla';

export interface TerminalState {
  open: boolean;
  started: boolean;
}

const store = createStore<TerminalState>(() => ({ open: false, started: false }));

export const terminalActions = {
  setOpen(open: boolean): void {
    store.setState((s) => ({ open, started: s.started || open }));
  },
  toggle(): void {
    store.setState((s) => ({ open: !s.open, started: true }));
  },
};

export function useTerminalState<T>(select: (s: TerminalState) => T): T {
  return useStore(store, select);
}
