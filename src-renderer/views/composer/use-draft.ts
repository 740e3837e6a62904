// The message being written: its text (kept per thread in this browser, so it survives switching threads
// and reloading the page), the caret, the images attached and the files mentioned. Another thread (or
// project) shows its own draft, with no attachments or mentions, in the same render as the switch.
import { useRef, useState } from 'react';
import { MAX_IMAGE_BYTES } from '../../../src-preload/protocol';
import { composerDraftKey, loadComposerDraft, saveComposerDraft } from '../../store/saved-drafts';

/** A file attached with `@` (sent as a `mention` input while the text still names it). */
export interface Mention {
  name: string;
  path: string;
}

interface Attachment {
  id: number;
  name: string;
  url: string;
}

function readAsDataUrl(file: File): Promise<string> {
  return new Promise((resolve, reject) => {
    const reader = new FileReader();
    reader.onload = () =>
      typeof reader.result === 'string' ? resolve(reader.result) : reject(new Error('unreadable'));
    reader.onerror = () => reject(reader.error ?? new Error('unreadable'));
    reader.readAsDataURL(file);
  });
}

/**
 * The draft of the thread `threadId` of the project `cwd` (null: a new thread). `onSwitch` runs, during
 * the render, when the draft shown becomes another thread's.
 */
export function useDraft(threadId: string | null, cwd: string | null, onSwitch: () => void) {
  const draftKey = composerDraftKey(threadId, cwd);
  const [text, setText] = useState(() => loadComposerDraft(draftKey));
  const [caret, setCaret] = useState(0);
  const [attachments, setAttachments] = useState<Attachment[]>([]);
  const [mentions, setMentions] = useState<Mention[]>([]);
  const nextId = useRef(1);

  const [shownDraftKey, setShownDraftKey] = useState(draftKey);
  if (shownDraftKey !== draftKey) {
    setShownDraftKey(draftKey);
    setText(loadComposerDraft(draftKey));
    setAttachments([]);
    setMentions([]);
    onSwitch();
  }

  /** The text as sent: the thread's saved draft and the new thread's are emptied. */
  const clearText = (): void => {
    saveComposerDraft(draftKey, '');
    saveComposerDraft(composerDraftKey(null, cwd), '');
    setText('');
  };

  return {
    /** Changes whenever the draft shown becomes another thread's. */
    key: draftKey,
    text,
    caret,
    attachments,
    mentions,

    /** The text typed (saved at once); `at`: the caret after it. */
    edit(value: string, at: number = value.length): void {
      saveComposerDraft(draftKey, value);
      setText(value);
      setCaret(at);
    },

    setCaret,
    clearText,

    /** The whole message was sent: text, attachments and mentions go. */
    clear(): void {
      clearText();
      setAttachments([]);
      setMentions([]);
    },

    /** Attaches the images among `files`, in order; one over the size limit is left out and told to `refuse`. */
    async attachImages(files: Iterable<File>, refuse: (message: string) => void): Promise<void> {
      for (const file of files) {
        if (!file.type.startsWith('image/')) continue;
        if (file.size > MAX_IMAGE_BYTES) {
          refuse(`${file.name} is larger than ${MAX_IMAGE_BYTES / 1048576} MiB; attach a smaller image.`);
          continue;
        }
        const url = await readAsDataUrl(file);
        const id = nextId.current++;
        setAttachments((list) => [...list, { id, name: file.name || 'Pasted image', url }]);
      }
    },

    detach(id: number): void {
      setAttachments((list) => list.filter((x) => x.id !== id));
    },

    mention(mention: Mention): void {
      setMentions((list) => (list.some((m) => m.path === mention.path) ? list : [...list, mention]));
    },

    unmention(path: string): void {
      setMentions((list) => list.filter((x) => x.path !== path));
    },

    /** The mentions the text still names (only these are sent). */
    named(): Mention[] {
      return mentions.filter((m) => text.includes(`@${m.name}`));
    },
  };
}
