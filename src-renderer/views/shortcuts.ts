// The window's keyboard shortcuts that more than one view names: how the platform writes the Ctrl/Cmd
// modifier in hints, and the board's jump to the next thread that needs the person.

/** How the platform writes the Ctrl/Cmd modifier in shortcut hints. */
export const SHORTCUT_MOD = /Mac|iP/.test(navigator.platform) ? '⌘' : 'Ctrl+';

/**
 * Ctrl+J (⌘J on macOS): the next thread that needs the person. J is "next" in many lists; Weft's other
 * shortcuts are Ctrl+K (search), Ctrl+B (sidebar), Ctrl+` (terminal), Ctrl+N / Ctrl+O (the desktop menu).
 */
export const NEXT_NEEDING_YOU = { hint: `${SHORTCUT_MOD}J`, aria: 'Control+J' } as const;

export function isNextNeedingYouKey(event: KeyboardEvent): boolean {
  return (event.ctrlKey || event.metaKey) && !event.altKey && !event.shiftKey && event.key.toLowerCase() === 'j';
}
