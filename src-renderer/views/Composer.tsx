// The composer: multi-line message (Enter sends, Shift+Enter breaks the line), image attachments (file
// picker or paste), the model / effort / approval / sandbox pickers, and Send / Stop. While a turn runs,
// sending steers it; Stop or Esc interrupts it.
import { useEffect, useId, useRef, useState } from 'react';
import type { ClipboardEvent, KeyboardEvent } from 'react';
import type { UserInput } from '../../src-preload/protocol';
import {
  MAX_IMAGE_BYTES,
  AskForApproval as ApprovalValues,
  ReasoningEffort as EffortValues,
  SandboxMode as SandboxValues,
} from '../../src-preload/protocol';
import { Icon } from '../components/Icon';
import {
  APPROVAL_DESCRIPTIONS,
  APPROVAL_LABELS,
  EFFORT_LABELS,
  SANDBOX_DESCRIPTIONS,
  SANDBOX_LABELS,
} from '../components/policy-labels';
import { composerDraftKey, loadComposerDraft, saveComposerDraft } from '../store/saved-drafts';
import { runningTurn } from '../store/selectors';
import {
  ComposerMenu,
  INIT_PROMPT,
  menuFor,
  slashCommandOf,
  slashEntries,
  StatusPanel,
  type MenuEntry,
} from './ComposerMenus';
import { useController, useWeft } from '../store/app-context';
import { openRestore } from '../store/checkpoint-ui';
import { useReviewNotes } from '../store/turn-review';

interface Mention {
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

function Picker<T extends string>(props: {
  label: string;
  /** Shown while the value is unknown (the thread's or config's default applies). */
  unset: string;
  value: T | null;
  options: readonly T[];
  labels: (value: T) => string;
  onChange: (value: T) => void;
  /** What the current value does, shown as the tooltip. */
  describe?: (value: T) => string;
  /** Set when the picker does not apply; it is disabled and this is its tooltip. */
  disabledReason?: string | null;
}) {
  const { label, unset, value, options, labels, onChange, describe, disabledReason } = props;
  const disabled = disabledReason !== undefined && disabledReason !== null;
  const title = disabled
    ? disabledReason
    : value !== null && describe !== undefined
      ? `${label}: ${describe(value)}`
      : label;
  return (
    <label className={`picker ${disabled ? 'is-disabled' : ''}`} title={title}>
      <span className="sr-only">{label}</span>
      <select
        aria-label={label}
        disabled={disabled}
        value={value ?? ''}
        onChange={(e) => {
          const next = options.find((o) => o === e.target.value);
          if (next !== undefined) onChange(next);
        }}
      >
        {value === null && <option value="">{unset}</option>}
        {options.map((option) => (
          <option key={option} value={option}>
            {labels(option)}
          </option>
        ))}
      </select>
      <Icon name="chevronDown" size={12} />
    </label>
  );
}

function Pickers() {
  const controller = useController();
  const settings = useWeft((s) => s.ui.settings);
  const models = useWeft((s) => s.ui.models);
  const modelIds = models.map((m) => m.id);
  const modelOptions =
    settings.model !== null && !modelIds.includes(settings.model) ? [settings.model, ...modelIds] : modelIds;
  const model = models.find((m) => m.id === settings.model);
  // Efforts Weft has labels for; a model may support others (they stay settable through the protocol).
  const modelEfforts = model?.supportedReasoningEfforts.flatMap((e) => {
    const known = EffortValues.safeParse(e.reasoningEffort);
    return known.success ? [known.data] : [];
  });
  const efforts = modelEfforts && modelEfforts.length > 0 ? modelEfforts : EffortValues.options;
  const noReasoning =
    model?.supportedReasoningEfforts.length === 0
      ? `${model.displayName} does not reason, so there is no effort to choose`
      : null;
  return (
    <div className="pickers">
      <Picker
        label="Model"
        unset="Default model"
        value={settings.model}
        options={modelOptions}
        labels={(id) => models.find((m) => m.id === id)?.displayName ?? id}
        onChange={(v) => controller.setSetting('model', v)}
      />
      <Picker
        label="Reasoning effort"
        unset={noReasoning === null ? 'Default effort' : 'No reasoning'}
        value={noReasoning === null ? settings.effort : null}
        options={noReasoning === null ? efforts : []}
        labels={(v) => EFFORT_LABELS[v]}
        onChange={(v) => controller.setSetting('effort', v)}
        disabledReason={noReasoning}
      />
      <Picker
        label="Approval policy"
        unset="Default approvals"
        value={settings.approvalPolicy}
        options={ApprovalValues.options}
        labels={(v) => APPROVAL_LABELS[v]}
        describe={(v) => APPROVAL_DESCRIPTIONS[v]}
        onChange={(v) => controller.setSetting('approvalPolicy', v)}
      />
      <Picker
        label="Sandbox"
        unset="Default sandbox"
        value={settings.sandbox}
        options={SandboxValues.options}
        labels={(v) => SANDBOX_LABELS[v]}
        describe={(v) => SANDBOX_DESCRIPTIONS[v]}
        onChange={(v) => controller.setSetting('sandbox', v)}
      />
    </div>
  );
}

export function Composer({ disabled, placeholder }: { disabled: boolean; placeholder: string }) {
  const controller = useController();
  const threadId = useWeft((s) => s.ui.activeThreadId);
  const reviewNotes = useReviewNotes(threadId);
  const running = useWeft((s) => (threadId === null ? false : runningTurn(s.data.conversations[threadId]) !== null));
  const connection = useWeft((s) => s.ui.connection.phase);
  const cwd = useWeft((s) => s.data.cwd);
  // Drafts survive switching threads and reloading the page (kept per thread in this browser).
  const draftKey = composerDraftKey(threadId, cwd);
  const [text, setText] = useState(() => loadComposerDraft(draftKey));
  const [attachments, setAttachments] = useState<Attachment[]>([]);
  const [sending, setSending] = useState(false);
  const [mentions, setMentions] = useState<Mention[]>([]);
  const [caret, setCaret] = useState(0);
  const [menuClosed, setMenuClosed] = useState(false);
  const [selected, setSelected] = useState(0);
  const [fileEntries, setFileEntries] = useState<MenuEntry[]>([]);
  const [statusOpen, setStatusOpen] = useState(false);
  const conversation = useWeft((s) => (threadId === null ? undefined : s.data.conversations[threadId]));
  const settings = useWeft((s) => s.ui.settings);
  const nextId = useRef(1);
  const input = useRef<HTMLTextAreaElement>(null);
  const fileInput = useRef<HTMLInputElement>(null);

  const request = menuClosed ? null : menuFor(text, caret);
  const mentionQuery = request?.kind === 'mention' ? request.query : null;
  const entries: MenuEntry[] =
    request === null ? [] : request.kind === 'slash' ? slashEntries(request.query) : fileEntries;

  // `@query`: files of the project matching it, best first (a newer query supersedes an older one).
  useEffect(() => {
    if (mentionQuery === null || cwd === null) return;
    let current = true;
    void controller
      .request('fuzzyFileSearch', { query: mentionQuery, roots: [cwd], cancellationToken: 'composer-mention' })
      .then((r) => {
        if (!current) return;
        setFileEntries(
          r.files.slice(0, 12).map((f) => ({
            key: `${f.root}/${f.path}`,
            name: f.path,
            detail: f.root === cwd ? '' : f.root,
            indices: f.indices ?? undefined,
          })),
        );
        setSelected(0);
      })
      .catch(() => undefined);
    return () => {
      current = false;
    };
  }, [mentionQuery, cwd, controller]);

  // Another thread (or project): its own draft, no attachments, in the same render as the switch.
  const [shownDraftKey, setShownDraftKey] = useState(draftKey);
  if (shownDraftKey !== draftKey) {
    setShownDraftKey(draftKey);
    setText(loadComposerDraft(draftKey));
    setAttachments([]);
    setMentions([]);
    setStatusOpen(false);
  }
  useEffect(() => {
    input.current?.focus();
  }, [draftKey]);

  // The textarea grows with its text up to a third of the window, then scrolls.
  useEffect(() => {
    const element = input.current;
    if (element === null) return;
    element.style.height = 'auto';
    element.style.height = `${Math.min(element.scrollHeight, Math.round(window.innerHeight / 3))}px`;
  }, [text]);

  const update = (value: string, at: number = value.length): void => {
    saveComposerDraft(draftKey, value);
    setText(value);
    setCaret(at);
    setMenuClosed(false);
    setSelected(0);
  };

  const runSlash = async (name: string): Promise<void> => {
    update('');
    const last = conversation?.turnIds[conversation.turnIds.length - 1];
    switch (name) {
      case 'compact':
        if (threadId === null) controller.toast('Nothing to compact yet: start a thread first.', 'info');
        else
          await controller
            .request('thread/compact/start', { threadId })
            .catch((e: unknown) =>
              controller.toast(`Could not compact: ${e instanceof Error ? e.message : String(e)}`),
            );
        return;
      case 'undo':
        // The same preview as the turn's "Undo this turn": what would change, conflicts, then confirm.
        if (threadId === null || last === undefined) controller.toast('Nothing to undo yet.', 'info');
        else if (running) controller.toast('Wait for the turn to finish (or stop it) before undoing it.', 'info');
        else openRestore({ threadId, beforeTurnId: last, kind: 'undo', dropped: 1 });
        return;
      case 'fork':
        if (threadId === null) controller.toast('Nothing to fork yet: start a thread first.', 'info');
        else await controller.fork(threadId);
        return;
      case 'model':
      case 'approvals': {
        const picker = document.querySelector<HTMLSelectElement>(
          `select[aria-label="${name === 'model' ? 'Model' : 'Approval policy'}"]`,
        );
        picker?.focus();
        try {
          picker?.showPicker();
        } catch {
          // Not every browser opens a select programmatically; it has the focus, arrows change it.
        }
        return;
      }
      case 'init':
        await controller.send([{ type: 'text', text: INIT_PROMPT }]);
        return;
      case 'status':
        setStatusOpen(true);
        return;
      case 'diff': {
        const withDiff = conversation?.turnIds.findLast((id) => conversation.turns[id]?.diff);
        if (threadId === null || withDiff === undefined) controller.toast('No changes in this thread yet.', 'info');
        else controller.showTurnDiff(threadId, withDiff);
        return;
      }
      case 'review':
        if (threadId === null) controller.toast('Nothing to review in: start a thread first.', 'info');
        else
          await controller
            .request('review/start', { threadId, target: { type: 'uncommittedChanges' } })
            .catch((e: unknown) =>
              controller.toast(`Could not start the review: ${e instanceof Error ? e.message : String(e)}`),
            );
        return;
      case 'mcp':
        controller.openSettings('mcp');
        return;
      default:
        controller.toast(`/${name} is not available on this server.`, 'info');
    }
  };

  const choose = (entry: MenuEntry): void => {
    if (request === null) return;
    if (request.kind === 'slash') {
      void runSlash(entry.key);
      return;
    }
    const root = cwd ?? '';
    const path = entry.detail === '' ? `${root}/${entry.name}` : `${entry.detail}/${entry.name}`;
    const before = text.slice(0, request.start);
    const after = text.slice(caret);
    const inserted = `@${entry.name} `;
    update(before + inserted + after, before.length + inserted.length);
    setMentions((list) => (list.some((m) => m.path === path) ? list : [...list, { name: entry.name, path }]));
    input.current?.focus();
  };

  const addFiles = async (files: Iterable<File>): Promise<void> => {
    for (const file of files) {
      if (!file.type.startsWith('image/')) continue;
      if (file.size > MAX_IMAGE_BYTES) {
        controller.toast(`${file.name} is larger than ${MAX_IMAGE_BYTES / 1048576} MiB; attach a smaller image.`);
        continue;
      }
      const url = await readAsDataUrl(file);
      const id = nextId.current++;
      setAttachments((list) => [...list, { id, name: file.name || 'Pasted image', url }]);
    }
  };

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
      if (ran) {
        saveComposerDraft(draftKey, '');
        saveComposerDraft(composerDraftKey(null, cwd), '');
        setText('');
      }
      return;
    }
    // Only the mentions still named in the text are sent.
    const named = mentions.filter((m) => text.includes(`@${m.name}`));
    const payload: UserInput[] = [
      ...(trimmed === '' ? [] : [{ type: 'text' as const, text }]),
      ...attachments.map((a) => ({ type: 'image' as const, url: a.url })),
      ...named.map((m) => ({ type: 'mention' as const, name: m.name, path: m.path })),
    ];
    setSending(true);
    const ok = await controller.send(payload);
    setSending(false);
    if (ok) {
      saveComposerDraft(draftKey, '');
      saveComposerDraft(composerDraftKey(null, cwd), '');
      setText('');
      setAttachments([]);
      setMentions([]);
    }
  };

  const onKeyDown = (event: KeyboardEvent<HTMLTextAreaElement>): void => {
    if (entries.length > 0 && !event.nativeEvent.isComposing) {
      if (event.key === 'ArrowDown' || event.key === 'ArrowUp') {
        event.preventDefault();
        const step = event.key === 'ArrowDown' ? 1 : -1;
        setSelected((i) => (i + step + entries.length) % entries.length);
        return;
      }
      if ((event.key === 'Enter' && !event.shiftKey) || event.key === 'Tab') {
        const entry = entries[Math.min(selected, entries.length - 1)];
        if (entry !== undefined) {
          event.preventDefault();
          choose(entry);
          return;
        }
      }
      if (event.key === 'Escape') {
        event.preventDefault();
        setMenuClosed(true);
        return;
      }
    }
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
      {entries.length > 0 && (
        <ComposerMenu
          label={request?.kind === 'slash' ? 'Commands' : 'Files'}
          entries={entries}
          selected={Math.min(selected, entries.length - 1)}
          onChoose={choose}
          onHover={setSelected}
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
                onClick={() => setMentions((list) => list.filter((x) => x.path !== m.path))}
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
                onClick={() => setAttachments((list) => list.filter((x) => x.id !== a.id))}
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
        onChange={(e) => update(e.target.value, e.target.selectionStart)}
        onSelect={(e) => setCaret(e.currentTarget.selectionStart)}
        aria-autocomplete="list"
        aria-expanded={entries.length > 0}
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
        <Pickers />
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
