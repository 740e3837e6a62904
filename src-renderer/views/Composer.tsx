// The composer: multi-line message (Enter sends, Shift+Enter breaks the line), image attachments (file
// picker or paste), the model / effort / approval / sandbox pickers, and Send / Stop. While a turn runs,
// sending steers it; Stop or Esc interrupts it. The draft (composer/use-draft.ts), the `/` and `@` menu
// (composer/use-mention-menu.ts) and the `/` commands (composer/slash-commands.ts) live beside it.
import { useEffect, useId, useRef, useState } from 'react';
import type { ClipboardEvent, KeyboardEvent } from 'react';
import type { UserInput } from '../../src-preload/protocol';
import { Icon } from '../components/Icon';
import { APPROVAL_LABELS, SANDBOX_LABELS } from '../components/policy-labels';
import { useController, useWeft } from '../store/app-context';
import { runningTurn, workFolder } from '../store/selectors';
import { useReviewNotes } from '../store/turn-review';
import { ComposerMenu, StatusPanel, type MenuEntry } from './composer/ComposerMenus';
import { Pickers, type PickerRefs } from './composer/Pickers';
import { runSlashCommand, slashCommandOf, type SlashContext } from './composer/slash-commands';
import { useDraft } from './composer/use-draft';
import { useMentionMenu } from './composer/use-mention-menu';

/** Whether the browser sizes a textarea to its text (CSS `field-sizing`, Chromium 123 and later). */
const SIZES_ITSELF = typeof CSS !== 'undefined' && CSS.supports('field-sizing', 'content');
export function Composer({ disabled, placeholder }: { disabled: boolean; placeholder: string }) {
  const controller = useController();
  const threadId = useWeft((s) => s.ui.activeThreadId);
  const reviewNotes = useReviewNotes(threadId);
  const running = useWeft((s) => (threadId === null ? false : runningTurn(s.data.conversations[threadId]) !== null));
  const connection = useWeft((s) => s.ui.connection.phase);
  const cwd = useWeft((s) => s.data.cwd);
  const [sending, setSending] = useState(false);
  const [statusOpen, setStatusOpen] = useState(false);
  const draft = useDraft(threadId, cwd, () => setStatusOpen(false));
  const { text, attachments, mentions } = draft;
  // A worktree thread's files are its worktree's; a project on an environment has its files searched there.
  const filesRoot = useWeft((s) => workFolder(s.data, threadId));
  const menu = useMentionMenu(text, draft.caret, filesRoot);
  const conversation = useWeft((s) => (threadId === null ? undefined : s.data.conversations[threadId]));
  const settings = useWeft((s) => s.ui.settings);
  const input = useRef<HTMLTextAreaElement>(null);
  const fileInput = useRef<HTMLInputElement>(null);
  const pickers: PickerRefs = { model: useRef<HTMLSelectElement>(null), approvals: useRef<HTMLSelectElement>(null) };

  // The composer is always in view: a focus that need not scroll it there needs no layout of the page either
  // (with eight agents streaming, a switch of thread spent 10–12 ms laying it out for this focus alone).
  useEffect(() => {
    input.current?.focus({ preventScroll: true });
  }, [draft.key]);

  // The textarea grows with its text up to a third of the window, then scrolls: by itself (`field-sizing`
  // in composer.css), or where a browser lacks that, here, which lays the page out at every keystroke.
  useEffect(() => {
    const element = input.current;
    if (element === null || SIZES_ITSELF) return;
    element.style.height = 'auto';
    element.style.height = `${Math.min(element.scrollHeight, Math.round(window.innerHeight / 3))}px`;
  }, [text]);

  const edit = (value: string, at?: number): void => {
    draft.edit(value, at);
    menu.reopen();
  };

  const slashContext: SlashContext = {
    controller,
    threadId,
    conversation,
    running,
    showStatus: () => setStatusOpen(true),
    focusPicker(which) {
      const picker = pickers[which].current;
      picker?.focus();
      try {
        picker?.showPicker();
      } catch {
        // Not every browser opens a select programmatically; it has the focus, arrows change it.
      }
    },
  };

  const runSlash = (name: string): Promise<void> => {
    edit('');
    return runSlashCommand(name, slashContext);
  };

  const choose = (entry: MenuEntry): void => {
    if (menu.kind === 'slash') {
      void runSlash(entry.key);
      return;
    }
    const chosen = menu.mentionOf(entry);
    if (chosen === null) return;
    edit(chosen.text, chosen.caret);
    draft.mention(chosen.mention);
    input.current?.focus();
  };

  const addFiles = (files: Iterable<File>): Promise<void> =>
    draft.attachImages(files, (message) => controller.toast(message));

  /** The draft is a `!` command: it runs unsandboxed, which the composer says while it is typed. */
  const shellDraft = attachments.length === 0 && text.trimStart().startsWith('!');
  const shellHintId = useId();

  const canSend = !disabled && !sending && connection !== 'failed' && (text.trim() !== '' || attachments.length > 0);

  const send = async (): Promise<void> => {
    if (!canSend) return;
    const slash = attachments.length === 0 ? slashCommandOf(text) : null;
    if (slash !== null) {
      await runSlash(slash);
      return;
    }
    const trimmed = text.trim();
    if (trimmed.startsWith('!') && trimmed.length > 1 && attachments.length === 0) {
      setSending(true);
      const ran = await controller.shellCommand(trimmed.slice(1).trim());
      setSending(false);
      if (ran) draft.clearText();
      return;
    }
    // Only the mentions still named in the text are sent.
    const payload: UserInput[] = [
      ...(trimmed === '' ? [] : [{ type: 'text' as const, text }]),
      ...attachments.map((a) => ({ type: 'image' as const, url: a.url })),
      ...draft.named().map((m) => ({ type: 'mention' as const, name: m.name, path: m.path })),
    ];
    setSending(true);
    const ok = await controller.send(payload);
    setSending(false);
    if (ok) draft.clear();
  };

  const onKeyDown = (event: KeyboardEvent<HTMLTextAreaElement>): void => {
    if (menu.onKeyDown(event, choose)) return;
    if (event.key === 'Enter' && !event.shiftKey && !event.nativeEvent.isComposing) {
      event.preventDefault();
      void send();
    } else if (event.key === 'Escape' && statusOpen) {
      // The /status panel goes first; the next Esc stops a running turn.
      event.preventDefault();
      setStatusOpen(false);
    } else if (event.key === 'Escape' && running) {
      event.preventDefault();
      void controller.stop();
    }
  };

  const onPaste = (event: ClipboardEvent<HTMLTextAreaElement>): void => {
    const images = [...event.clipboardData.files].filter((f) => f.type.startsWith('image/'));
    if (images.length === 0) return;
    event.preventDefault();
    void addFiles(images);
  };

  return (
    <div className={`composer ${disabled ? 'is-disabled' : ''}`}>
      {menu.entries.length > 0 && (
        <ComposerMenu
          label={menu.kind === 'slash' ? 'Commands' : 'Files'}
          entries={menu.entries}
          selected={menu.chosen}
          onChoose={choose}
          onHover={menu.hover}
        />
      )}
      {statusOpen && (
        <StatusPanel
          conversation={conversation}
          model={settings.model ?? 'default'}
          approvals={settings.approvalPolicy === null ? 'default' : APPROVAL_LABELS[settings.approvalPolicy]}
          sandbox={settings.sandbox === null ? 'default' : SANDBOX_LABELS[settings.sandbox]}
          onClose={() => {
            setStatusOpen(false);
            input.current?.focus();
          }}
        />
      )}
      {mentions.length > 0 && (
        <ul className="composer-mentions" aria-label="Mentioned files">
          {mentions.map((m) => (
            <li key={m.path} title={m.path}>
              @{m.name}
              <button
                type="button"
                className="icon-button"
                aria-label={`Remove @${m.name}`}
                onClick={() => draft.unmention(m.path)}
              >
                <Icon name="x" size={12} />
              </button>
            </li>
          ))}
        </ul>
      )}
      {attachments.length > 0 && (
        <ul className="attachments" aria-label="Attached images">
          {attachments.map((a) => (
            <li key={a.id} className="attachment">
              <img src={a.url} alt="" />
              <span className="attachment-name">{a.name}</span>
              <button
                type="button"
                className="icon-button"
                aria-label={`Remove ${a.name}`}
                onClick={() => draft.detach(a.id)}
              >
                <Icon name="x" size={12} />
              </button>
            </li>
          ))}
        </ul>
      )}
      <textarea
        ref={input}
        className="composer-input"
        aria-label="Message"
        placeholder={running ? 'Add to the running turn…' : placeholder}
        rows={1}
        value={text}
        disabled={disabled}
        onChange={(e) => edit(e.target.value, e.target.selectionStart)}
        onSelect={(e) => draft.setCaret(e.currentTarget.selectionStart)}
        aria-autocomplete="list"
        aria-expanded={menu.entries.length > 0}
        aria-describedby={shellDraft ? shellHintId : undefined}
        onKeyDown={onKeyDown}
        onPaste={onPaste}
      />
      {reviewNotes.length > 0 && !shellDraft && (
        <p className="composer-hint" role="note">
          <Icon name="diff" size={12} />
          <span>
            Your review of {reviewNotes.length === 1 ? '1 hunk' : `${reviewNotes.length} hunks`} goes to the agent with
            this message.
          </span>
        </p>
      )}
      {shellDraft && (
        <p className="composer-hint" id={shellHintId} role="note">
          <Icon name="terminal" size={12} />
          <span>Runs in your own shell, outside the sandbox. The agent sees its output next turn.</span>
        </p>
      )}
      <div className="composer-bar">
        <button
          type="button"
          className="icon-button"
          aria-label="Attach image"
          title="Attach image"
          disabled={disabled}
          onClick={() => fileInput.current?.click()}
        >
          <Icon name="paperclip" />
        </button>
        <input
          ref={fileInput}
          type="file"
          accept="image/*"
          multiple
          hidden
          onChange={(e) => {
            void addFiles(e.target.files ?? []);
            e.target.value = '';
          }}
        />
        <Pickers refs={pickers} />
        <span className="spacer" />
        {running && (
          <button type="button" className="btn btn-stop" onClick={() => void controller.stop()} title="Stop (Esc)">
            <Icon name="stop" size={12} />
            Stop
          </button>
        )}
        <button
          type="button"
          className="btn btn-primary btn-send"
          disabled={!canSend}
          onClick={() => void send()}
          title={running ? 'Send to the running turn (Enter)' : 'Send (Enter)'}
        >
          <Icon name="arrowUp" size={14} />
          Send
        </button>
      </div>
    </div>
  );
}
