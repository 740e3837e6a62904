// The menu above the composer while the text asks for one: `/word` at the very start lists the `/`
// commands (slash-commands.ts), an `@word` ending at the caret lists the project's files matching it
// (`fuzzyFileSearch`), to attach as mentions. Arrows move the choice, Enter or Tab takes it, Esc closes the
// menu until the text changes again.
import { useEffect, useState } from 'react';
import type { KeyboardEvent } from 'react';
import { useController } from '../../store/app-context';
import { projectPlace } from '../../store/project-key';
import type { MenuEntry } from './ComposerMenus';
import { slashEntries } from './slash-commands';
import type { Mention } from './use-draft';

/** Which menu the text asks for: `/word` at the very start, or an `@word` ending at the caret. */
type MenuRequest = { kind: 'slash'; query: string } | { kind: 'mention'; query: string; start: number } | null;

function menuFor(text: string, caret: number): MenuRequest {
  const slash = /^\/(\S*)$/.exec(text);
  if (slash) return { kind: 'slash', query: slash[1] ?? '' };
  const before = text.slice(0, caret);
  const at = /(^|\s)@([^\s@]*)$/.exec(before);
  if (at) return { kind: 'mention', query: at[2] ?? '', start: before.length - (at[2]?.length ?? 0) - 1 };
  return null;
}

/** Files shown for an `@` query. */
const MENTION_ENTRIES = 12;

/** `filesKey`: the project key of the folder whose files `@` lists (on its environment); null: none. */
export function useMentionMenu(text: string, caret: number, filesKey: string | null) {
  const controller = useController();
  const [closed, setClosed] = useState(false);
  const [selected, setSelected] = useState(0);
  const [fileEntries, setFileEntries] = useState<MenuEntry[]>([]);

  const request = closed ? null : menuFor(text, caret);
  const mentionQuery = request?.kind === 'mention' ? request.query : null;
  const entries: MenuEntry[] =
    request === null ? [] : request.kind === 'slash' ? slashEntries(request.query) : fileEntries;
  const chosen = Math.min(selected, entries.length - 1);

  // `@query`: files of the project matching it, best first (a newer query supersedes an older one).
  useEffect(() => {
    if (mentionQuery === null || filesKey === null) return;
    const { environment, folder } = projectPlace(filesKey);
    let current = true;
    void controller
      .request('fuzzyFileSearch', {
        query: mentionQuery,
        roots: [folder],
        cancellationToken: 'composer-mention',
        ...(environment === null ? {} : { weftEnvironment: environment }),
      })
      .then((r) => {
        if (!current) return;
        setFileEntries(
          r.files.slice(0, MENTION_ENTRIES).map((f) => ({
            key: `${f.root}/${f.path}`,
            name: f.path,
            detail: f.root === folder ? '' : f.root,
            indices: f.indices ?? undefined,
          })),
        );
        setSelected(0);
      })
      .catch(() => undefined);
    return () => {
      current = false;
    };
  }, [mentionQuery, filesKey, controller]);

  return {
    /** The menu shown: the `/` commands or the files for `@`; null when none is. */
    kind: request?.kind ?? null,
    entries,
    /** The entry Enter takes (an index into `entries`). */
    chosen,
    hover: setSelected,

    /** The text changed: a menu closed with Esc may open again, on its first entry. */
    reopen(): void {
      setClosed(false);
      setSelected(0);
    },

    /**
     * The text with a file entry put in place of the `@word` at the caret, where the caret goes then and the
     * mention it adds; null while the menu is not the files'.
     */
    mentionOf(entry: MenuEntry): { text: string; caret: number; mention: Mention } | null {
      if (request?.kind !== 'mention') return null;
      const root = filesKey === null ? '' : projectPlace(filesKey).folder;
      const path = entry.detail === '' ? `${root}/${entry.name}` : `${entry.detail}/${entry.name}`;
      const before = text.slice(0, request.start);
      const after = text.slice(caret);
      const inserted = `@${entry.name} `;
      return {
        text: before + inserted + after,
        caret: before.length + inserted.length,
        mention: { name: entry.name, path },
      };
    },

    /** The menu's keys while it shows entries; true when the key was the menu's (`choose` takes an entry). */
    onKeyDown(event: KeyboardEvent<HTMLTextAreaElement>, choose: (entry: MenuEntry) => void): boolean {
      if (entries.length === 0 || event.nativeEvent.isComposing) return false;
      if (event.key === 'ArrowDown' || event.key === 'ArrowUp') {
        event.preventDefault();
        const step = event.key === 'ArrowDown' ? 1 : -1;
        setSelected((i) => (i + step + entries.length) % entries.length);
        return true;
      }
      if ((event.key === 'Enter' && !event.shiftKey) || event.key === 'Tab') {
        const entry = entries[chosen];
        if (entry !== undefined) {
          event.preventDefault();
          choose(entry);
          return true;
        }
      }
      if (event.key === 'Escape') {
        event.preventDefault();
        setClosed(true);
        return true;
      }
      return false;
    },
  };
}
