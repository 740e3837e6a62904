// The pickers under the composer: model, reasoning effort, approval policy and sandbox, each a native
// select. The composer holds refs to the model and approval pickers, which `/model` and `/approvals` focus.
import type { RefObject } from 'react';
import {
  AskForApproval as ApprovalValues,
  ReasoningEffort as EffortValues,
  SandboxMode as SandboxValues,
} from '../../../src-preload/protocol';
import { Icon } from '../../components/Icon';
import {
  APPROVAL_DESCRIPTIONS,
  APPROVAL_LABELS,
  EFFORT_LABELS,
  SANDBOX_DESCRIPTIONS,
  SANDBOX_LABELS,
} from '../../components/policy-labels';
import { useController, useWeft } from '../../store/app-context';

/** The pickers other parts of the composer hand the focus to. */
export interface PickerRefs {
  model: RefObject<HTMLSelectElement | null>;
  approvals: RefObject<HTMLSelectElement | null>;
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
  selectRef?: RefObject<HTMLSelectElement | null>;
}) {
  const { label, unset, value, options, labels, onChange, describe, disabledReason, selectRef } = props;
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
        ref={selectRef}
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

export function Pickers({ refs }: { refs: PickerRefs }) {
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
        selectRef={refs.model}
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
        selectRef={refs.approvals}
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
