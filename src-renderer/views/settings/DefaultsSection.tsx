// The defaults new threads start with: model, reasoning effort, approvals and sandbox (config.toml).
import { useCallback, useEffect, useId, useState } from 'react';
import { Spinner } from '../../components/Icon';
import { AskForApproval, ReasoningEffort, SandboxMode } from '../../../src-preload/protocol';
import {
  APPROVAL_DESCRIPTIONS,
  APPROVAL_LABELS,
  EFFORT_LABELS,
  riskWarning,
  SANDBOX_DESCRIPTIONS,
  SANDBOX_LABELS,
} from '../../components/policy-labels';
import { Icon } from '../../components/Icon';
import { useController, useWeft } from '../../store/app-context';
import { failureText, SectionHeading, useSettingsPlace } from './settings-place';

interface Defaults {
  model: string | null;
  effort: ReasoningEffort | null;
  approval: AskForApproval | null;
  sandbox: SandboxMode | null;
}

function Select<T extends string>(props: {
  label: string;
  value: T | null;
  options: readonly T[];
  labels: (v: T) => string;
  onChange: (v: T) => void;
  hint?: string;
}) {
  const id = useId();
  const hintId = useId();
  return (
    <div className="settings-field">
      <label htmlFor={id}>{props.label}</label>
      <select
        id={id}
        className="select"
        value={props.value ?? ''}
        aria-describedby={props.hint === undefined ? undefined : hintId}
        onChange={(e) => {
          const next = props.options.find((o) => o === e.target.value);
          if (next !== undefined) props.onChange(next);
        }}
      >
        {props.value === null && <option value="">Built-in default</option>}
        {props.options.map((o) => (
          <option key={o} value={o}>
            {props.labels(o)}
          </option>
        ))}
      </select>
      {props.hint !== undefined && (
        <span id={hintId} className="muted small">
          {props.hint}
        </span>
      )}
    </div>
  );
}

export function DefaultsSection() {
  const controller = useController();
  const place = useSettingsPlace();
  const models = useWeft((s) => s.ui.models);
  const [values, setValues] = useState<Defaults | null>(null);
  const [error, setError] = useState<string | null>(null);
  const titleId = useId();

  const load = useCallback(async () => {
    let read;
    try {
      read = await controller.request('config/read', { cwd: place.folder, ...place.on });
    } catch (e) {
      // What was shown stays (a dropped link loses nothing): the failure is said instead.
      setError(failureText(place, e, 'Could not read the defaults'));
      setValues((shown) => shown ?? { model: null, effort: null, approval: null, sandbox: null });
      return;
    }
    setError(null);
    const get = (key: string): unknown => read.config[key];
    const model = get('model');
    const effort = ReasoningEffort.safeParse(get('model_reasoning_effort'));
    const approval = AskForApproval.safeParse(get('approval_policy'));
    const sandbox = SandboxMode.safeParse(get('sandbox_mode'));
    setValues({
      model: typeof model === 'string' ? model : null,
      effort: effort.success ? effort.data : null,
      approval: approval.success ? approval.data : null,
      sandbox: sandbox.success ? sandbox.data : null,
    });
  }, [controller, place]);

  useEffect(() => {
    // eslint-disable-next-line react-hooks/set-state-in-effect -- load() sets state only after its await (react/react#34905)
    void load();
  }, [load]);

  const write = async (key: string, value: string): Promise<void> => {
    const failed = await controller.writeConfig(key, value);
    if (failed === null) setError(null);
    await load();
    // Said after the reading again, which may fail too (its failure says less than the write's).
    if (failed !== null) setError(failed);
  };

  const modelIds = models.map((m) => m.id);
  const modelOptions =
    values?.model !== null && values?.model !== undefined && !modelIds.includes(values.model)
      ? [values.model, ...modelIds]
      : modelIds;
  const warning = values === null ? null : riskWarning(values.approval, values.sandbox);
  return (
    <section className="settings-section" aria-labelledby={titleId}>
      <SectionHeading id={titleId}>Defaults for new threads</SectionHeading>
      {values === null && <Spinner size={14} label="Loading the defaults" />}
      {values !== null && (
        <div className="settings-grid">
          <Select
            label="Default model"
            value={values.model}
            options={modelOptions}
            labels={(id) => models.find((m) => m.id === id)?.displayName ?? id}
            onChange={(v) => void write('model', v)}
          />
          <Select
            label="Default reasoning effort"
            value={values.effort}
            options={ReasoningEffort.options}
            labels={(v) => EFFORT_LABELS[v]}
            onChange={(v) => void write('model_reasoning_effort', v)}
          />
          <Select
            label="Default approvals"
            value={values.approval}
            options={AskForApproval.options}
            labels={(v) => APPROVAL_LABELS[v]}
            onChange={(v) => void write('approval_policy', v)}
            hint={values.approval === null ? undefined : APPROVAL_DESCRIPTIONS[values.approval]}
          />
          <Select
            label="Default sandbox"
            value={values.sandbox}
            options={SandboxMode.options}
            labels={(v) => SANDBOX_LABELS[v]}
            onChange={(v) => void write('sandbox_mode', v)}
            hint={values.sandbox === null ? undefined : SANDBOX_DESCRIPTIONS[values.sandbox]}
          />
        </div>
      )}
      {warning !== null && (
        <p className="settings-warning" role="alert">
          <Icon name="alert" size={14} /> {warning}
        </p>
      )}
      {error !== null && (
        <p className="settings-status settings-status-error" role="alert">
          {error}
        </p>
      )}
    </section>
  );
}
