// Create or edit an automation: its name, prompt, the machine it runs on (this one, or a remote environment
// of config.toml, listed by `weft/environment/list`), its project (a folder there, completed by that machine's
// `weft/fs/complete`), where it runs (a worktree of its own or the project), model and effort, when it runs (a cron schedule in a time zone, checked by the server as it is
// typed, with its next time shown; or only Run now), and when a finished run is told. Saved through
// `weft/automations/create` / `update`; a refusal of the server is shown beside the field it names.
import { useEffect, useId, useRef, useState, type ReactNode } from 'react';
import {
  ReasoningEffort,
  type WeftEnvironmentEntry,
  type WeftAutomation,
  type WeftAutomationEntry,
  type WeftAutomationNotify,
  type WeftAutomationSettings,
  type WeftAutomationTrigger,
} from '../../../src-preload/protocol';
import { Icon, Spinner } from '../../components/Icon';
import { EFFORT_LABELS } from '../../components/policy-labels';
import { useModal } from '../../components/use-modal';
import { useController, useWeft } from '../../store/app-context';
import { messageOf } from '../../store/checkpoint-ui';
import { NOTIFY_LABELS, whenText } from './automation-text';

/** What the schedule check says: loading, a problem, or the next time (null: never). */
type Check = { state: 'checking' } | { state: 'bad'; problem: string } | { state: 'ok'; next: number | null };

function Field({ label, hint, children }: { label: string; hint?: ReactNode; children: (id: string) => ReactNode }) {
  const id = useId();
  return (
    <div className="settings-field">
      <label htmlFor={id}>{label}</label>
      {children(id)}
      {hint}
    </div>
  );
}

function Choice<T extends string>(props: {
  label: string;
  value: T;
  options: readonly { value: T; label: string }[];
  onChange: (value: T) => void;
}) {
  return (
    <div className="settings-field">
      <span className="automation-choice-label">{props.label}</span>
      <span className="segmented automation-choice" role="group" aria-label={props.label}>
        {props.options.map((o) => (
          <button
            key={o.value}
            type="button"
            aria-pressed={props.value === o.value}
            onClick={() => props.onChange(o.value)}
          >
            {o.label}
          </button>
        ))}
      </span>
    </div>
  );
}

/** The schedule's check by the server, again 250 ms after each change. */
function useScheduleCheck(cron: string, timezone: string, active: boolean): Check {
  const controller = useController();
  const [check, setCheck] = useState<Check>({ state: 'checking' });
  useEffect(() => {
    if (!active) return;
    let live = true;
    const timer = window.setTimeout(() => {
      controller
        .request('weft/automations/checkSchedule', { cron: cron.trim(), timezone: timezone.trim() || null })
        .then(
          (r) =>
            live &&
            setCheck(r.problem === null ? { state: 'ok', next: r.nextRunAt } : { state: 'bad', problem: r.problem }),
          (e: unknown) => live && setCheck({ state: 'bad', problem: messageOf(e) }),
        );
    }, 250);
    return () => {
      live = false;
      window.clearTimeout(timer);
    };
  }, [controller, cron, timezone, active]);
  return check;
}

/** The environments of the server's config.toml (empty until known, or when there are none). */
function useEnvironments(): WeftEnvironmentEntry[] {
  const controller = useController();
  const [environments, setEnvironments] = useState<WeftEnvironmentEntry[]>([]);
  useEffect(() => {
    let live = true;
    controller.request('weft/environment/list', {}).then(
      (r) => live && setEnvironments(r.data),
      () => undefined,
    );
    return () => {
      live = false;
    };
  }, [controller]);
  return environments;
}

/** Folders of `machine` (null: this one) that complete `path`, asked again 120 ms after each change. */
function useFolderCompletions(path: string, machine: string | null): string[] {
  const controller = useController();
  const [completions, setCompletions] = useState<string[]>([]);
  useEffect(() => {
    if (path.trim() === '') return;
    let live = true;
    const timer = window.setTimeout(() => {
      controller.request('weft/fs/complete', { path, ...(machine === null ? {} : { weftEnvironment: machine }) }).then(
        (r) => live && setCompletions(r.completions),
        () => undefined,
      );
    }, 120);
    return () => {
      live = false;
      window.clearTimeout(timer);
    };
  }, [controller, path, machine]);
  return path.trim() === '' ? [] : completions;
}

/** The trigger the form's fields give (the server checks it: a bad number goes as it is, to be refused). */
function triggerOf(
  kind: WeftAutomationTrigger['type'],
  f: { cron: string; timezone: string; branch: string; watchPath: string; debounce: string },
): WeftAutomationTrigger {
  switch (kind) {
    case 'manual':
      return { type: 'manual' };
    case 'schedule':
      return { type: 'schedule', cron: f.cron.trim(), timezone: f.timezone.trim() || null };
    case 'commit':
      return { type: 'commit', branch: f.branch.trim() };
    case 'fileChange':
      return {
        type: 'fileChange',
        path: f.watchPath.trim().replace(/^\.?\/+|\/+$/g, '') || null,
        debounceSeconds: f.debounce.trim() === '' ? null : Math.round(Number(f.debounce)),
      };
  }
}

export function AutomationForm({
  entry,
  onClose,
  onSaved,
}: {
  /** The automation edited; null = a new one. */
  entry: WeftAutomationEntry | null;
  onClose: () => void;
  onSaved: (entry: WeftAutomationEntry) => void;
}) {
  const controller = useController();
  const cwd = useWeft((s) => s.data.cwd);
  const models = useWeft((s) => s.ui.models);
  const was: WeftAutomation | null = entry?.automation ?? null;
  const [name, setName] = useState(was?.name ?? '');
  const [prompt, setPrompt] = useState(was?.prompt ?? '');
  const [project, setProject] = useState(was?.project ?? cwd ?? '');
  const [environment, setEnvironment] = useState<'worktree' | 'local'>(was?.environment ?? 'worktree');
  /** The environment it runs on; null: this machine. */
  const [machine, setMachine] = useState<string | null>(was?.remote ?? null);
  const environments = useEnvironments();
  const completions = useFolderCompletions(project, machine);
  const completionsId = useId();
  const [model, setModel] = useState(was?.model ?? '');
  const [effort, setEffort] = useState(was?.effort ?? '');
  const [kind, setKind] = useState<WeftAutomationTrigger['type']>(was?.trigger.type ?? 'schedule');
  const [branch, setBranch] = useState(was?.trigger.type === 'commit' ? was.trigger.branch : 'main');
  const [watchPath, setWatchPath] = useState(was?.trigger.type === 'fileChange' ? (was.trigger.path ?? '') : '');
  const [debounce, setDebounce] = useState(
    was?.trigger.type === 'fileChange' && was.trigger.debounceSeconds !== null
      ? String(was.trigger.debounceSeconds)
      : '',
  );
  const [cron, setCron] = useState(was?.trigger.type === 'schedule' ? was.trigger.cron : '0 9 * * 1-5');
  const [timezone, setTimezone] = useState(was?.trigger.type === 'schedule' ? (was.trigger.timezone ?? '') : '');
  const [notify, setNotify] = useState<WeftAutomationNotify>(was?.notify ?? 'changes');
  const [enabled, setEnabled] = useState(was?.enabled ?? true);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<{ field: 'schedule' | null; message: string } | null>(null);
  const check = useScheduleCheck(cron, timezone, kind === 'schedule');
  const titleId = useId();
  const dialog = useRef<HTMLElement>(null);
  useModal(dialog, onClose);

  const save = async (): Promise<void> => {
    setBusy(true);
    setError(null);
    const settings: WeftAutomationSettings = {
      name: name.trim(),
      prompt: prompt.trim(),
      project: project.trim(),
      enabled,
      environment,
      remote: machine,
      model: model === '' ? null : model,
      effort: effort === '' ? null : effort,
      notify,
      trigger: triggerOf(kind, { cron, timezone, branch, watchPath, debounce }),
    };
    try {
      const saved =
        entry === null
          ? await controller.request('weft/automations/create', settings)
          : await controller.request('weft/automations/update', { id: entry.id, changes: settings });
      onSaved(saved.entry);
    } catch (e) {
      const message = messageOf(e);
      setError({ field: /trigger\.(cron|timezone)/.test(message) ? 'schedule' : null, message });
    } finally {
      setBusy(false);
    }
  };

  const modelIds = models.map((m) => m.id);
  const modelOptions = model !== '' && !modelIds.includes(model) ? [model, ...modelIds] : modelIds;
  const scheduleError = error?.field === 'schedule' ? error.message : check.state === 'bad' ? check.problem : null;
  const missing = name.trim() === '' || prompt.trim() === '' || project.trim() === '';
  return (
    <div className="overlay overlay-center" onMouseDown={(e) => e.target === e.currentTarget && onClose()}>
      <section className="sheet automation-form" role="dialog" aria-modal="true" aria-labelledby={titleId} ref={dialog}>
        <header className="sheet-head">
          <h2 id={titleId}>{entry === null ? 'New automation' : `Edit ${was?.name ?? entry.id}`}</h2>
          <button type="button" className="icon-button" aria-label="Close" onClick={onClose}>
            <Icon name="x" />
          </button>
        </header>
        <form
          className="automation-form-body"
          onSubmit={(e) => {
            e.preventDefault();
            void save();
          }}
        >
          <div className="automation-form-fields">
            <Field label="Name">
              {(id) => (
                <input
                  id={id}
                  className="text-input"
                  value={name}
                  onChange={(e) => setName(e.target.value)}
                  autoFocus
                />
              )}
            </Field>
            <Field
              label="Prompt"
              hint={<span className="muted small">The first message of each run&apos;s thread.</span>}
            >
              {(id) => (
                <textarea
                  id={id}
                  className="text-input"
                  rows={4}
                  value={prompt}
                  onChange={(e) => setPrompt(e.target.value)}
                />
              )}
            </Field>
            {(environments.length > 0 || machine !== null) && (
              <Choice
                label="Runs on"
                value={machine ?? ''}
                options={[
                  { value: '', label: 'This machine' },
                  ...environments.map((e) => ({ value: e.name, label: e.name })),
                  // One no longer configured stays shown (a run of it fails saying so).
                  ...(machine !== null && !environments.some((e) => e.name === machine)
                    ? [{ value: machine, label: machine }]
                    : []),
                ]}
                onChange={(value) => {
                  const next = value === '' ? null : value;
                  setMachine(next);
                  // Commits and files are watched on this machine only.
                  if (next !== null && (kind === 'commit' || kind === 'fileChange')) setKind('schedule');
                }}
              />
            )}
            <Field
              label="Project folder"
              hint={
                machine === null ? undefined : (
                  <span className="muted small">A folder on {machine}; its thread and worktree are made there.</span>
                )
              }
            >
              {(id) => (
                <>
                  <input
                    id={id}
                    className="text-input"
                    value={project}
                    placeholder={machine === null ? '/path/to/your/project' : `/path/on/${machine}`}
                    spellCheck={false}
                    list={completionsId}
                    onChange={(e) => setProject(e.target.value)}
                  />
                  <datalist id={completionsId}>
                    {completions.map((c) => (
                      <option key={c} value={c} />
                    ))}
                  </datalist>
                </>
              )}
            </Field>
            <Choice
              label="Runs in"
              value={environment}
              options={[
                { value: 'worktree', label: 'A worktree of its own' },
                { value: 'local', label: 'The project folder' },
              ]}
              onChange={setEnvironment}
            />
            <div className="settings-grid">
              <Field label="Model">
                {(id) => (
                  <select id={id} className="select" value={model} onChange={(e) => setModel(e.target.value)}>
                    <option value="">The project&apos;s model</option>
                    {modelOptions.map((m) => (
                      <option key={m} value={m}>
                        {models.find((x) => x.id === m)?.displayName ?? m}
                      </option>
                    ))}
                  </select>
                )}
              </Field>
              <Field label="Reasoning effort">
                {(id) => (
                  <select id={id} className="select" value={effort} onChange={(e) => setEffort(e.target.value)}>
                    <option value="">The project&apos;s effort</option>
                    {ReasoningEffort.options.map((v) => (
                      <option key={v} value={v}>
                        {EFFORT_LABELS[v]}
                      </option>
                    ))}
                  </select>
                )}
              </Field>
            </div>
            <Choice
              label="Runs"
              value={kind}
              options={[
                { value: 'schedule', label: 'On a schedule' },
                // Commits and files are watched on this machine: not those of a project on an environment.
                ...(machine === null
                  ? ([
                      { value: 'commit', label: 'On a new commit' },
                      { value: 'fileChange', label: 'When files change' },
                    ] as const)
                  : []),
                { value: 'manual', label: 'Only with Run now' },
              ]}
              onChange={setKind}
            />
            {kind === 'commit' && (
              <Field
                label="Branch"
                hint={
                  <span className="muted small">
                    Its head is looked at once a minute; the commit there now does not count.
                  </span>
                }
              >
                {(id) => (
                  <input
                    id={id}
                    className="text-input"
                    value={branch}
                    spellCheck={false}
                    onChange={(e) => setBranch(e.target.value)}
                  />
                )}
              </Field>
            )}
            {kind === 'fileChange' && (
              <div className="settings-grid">
                <Field label="Folder (in the project)">
                  {(id) => (
                    <input
                      id={id}
                      className="text-input"
                      value={watchPath}
                      placeholder="All of it"
                      spellCheck={false}
                      onChange={(e) => setWatchPath(e.target.value)}
                    />
                  )}
                </Field>
                <Field label="Quiet for (seconds)">
                  {(id) => (
                    <input
                      id={id}
                      className="text-input"
                      inputMode="numeric"
                      value={debounce}
                      placeholder="10"
                      onChange={(e) => setDebounce(e.target.value)}
                    />
                  )}
                </Field>
              </div>
            )}
            {kind === 'schedule' && (
              <div className="settings-grid automation-schedule">
                <Field label="Schedule (cron)">
                  {(id) => (
                    <input
                      id={id}
                      className="text-input mono"
                      value={cron}
                      spellCheck={false}
                      aria-invalid={scheduleError !== null}
                      onChange={(e) => setCron(e.target.value)}
                    />
                  )}
                </Field>
                <Field label="Time zone">
                  {(id) => (
                    <input
                      id={id}
                      className="text-input"
                      value={timezone}
                      placeholder="This machine's"
                      spellCheck={false}
                      onChange={(e) => setTimezone(e.target.value)}
                    />
                  )}
                </Field>
                <p
                  className={`automation-next small ${scheduleError === null ? 'muted' : 'settings-status-error'}`}
                  role={scheduleError === null ? 'status' : 'alert'}
                >
                  {scheduleError !== null ? (
                    scheduleError
                  ) : check.state === 'checking' ? (
                    <Spinner size={12} label="Checking the schedule" />
                  ) : check.state === 'ok' ? (
                    `Next run: ${check.next === null ? 'never' : whenText(check.next)}`
                  ) : null}
                </p>
              </div>
            )}
            <Field label="Notify me">
              {(id) => (
                <select
                  id={id}
                  className="select"
                  value={notify}
                  onChange={(e) => {
                    const next = (['always', 'changes', 'never'] as const).find((v) => v === e.target.value);
                    if (next !== undefined) setNotify(next);
                  }}
                >
                  {(['changes', 'always', 'never'] as const).map((v) => (
                    <option key={v} value={v}>
                      {NOTIFY_LABELS[v]}
                    </option>
                  ))}
                </select>
              )}
            </Field>
            <label className="settings-check">
              <input type="checkbox" checked={enabled} onChange={(e) => setEnabled(e.target.checked)} />
              Enabled (runs on its trigger)
            </label>
            <p className="muted small">
              A run never asks you anything: what its sandbox refuses is refused, and the run says so.
            </p>
          </div>
          <footer className="review-foot automation-form-foot">
            {error !== null && error.field === null && (
              <span className="settings-status-error" role="alert">
                {error.message}
              </span>
            )}
            <span className="spacer" />
            <button type="button" className="btn" onClick={onClose}>
              Cancel
            </button>
            <button type="submit" className="btn btn-primary" disabled={busy || missing}>
              {entry === null ? 'Create automation' : 'Save'}
            </button>
          </footer>
        </form>
      </section>
    </div>
  );
}
