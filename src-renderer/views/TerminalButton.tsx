// The header's "Terminal" button: shows or hides the terminal panel (as Ctrl+` does).
import { Icon } from '../components/Icon';
import { terminalActions, useTerminalState } from '../store/terminal-store';

export function TerminalButton() {
  const open = useTerminalState((s) => s.open);
  return (
    <button
      type="button"
      className={`btn btn-small ${open ? 'is-active' : ''}`}
      aria-pressed={open}
      aria-keyshortcuts="Control+`"
      title="Terminal (Ctrl+`)"
      onClick={() => terminalActions.toggle()}
    >
      <Icon name="terminal" size={12} /> Terminal
    </button>
  );
}
