// The options of `weft automations add` and `edit`: their table, the trigger they give, and the
// refusals of options that do not go together (each naming the option and what would be accepted).

export const RECORD_OPTIONS = {
  name: { type: 'string' },
  project: { type: 'string' },
  schedule: { type: 'string' },
  timezone: { type: 'string' },
  manual: { type: 'boolean' },
  'on-commit': { type: 'string' },
  'on-change': { type: 'string' },
  debounce: { type: 'string' },
  prompt: { type: 'string' },
  local: { type: 'boolean' },
  worktree: { type: 'boolean' },
  model: { type: 'string' },
  effort: { type: 'string' },
  sandbox: { type: 'string' },
  env: { type: 'string' },
  here: { type: 'boolean' },
} as const;

const TRIGGER_FLAGS = ['schedule', 'manual', 'on-commit', 'on-change'] as const;

/** The trigger options given (`--manual` only when true). */
export function triggerFlags(values: {
  schedule?: string;
  manual?: boolean;
  'on-commit'?: string;
  'on-change'?: string;
}) {
  return TRIGGER_FLAGS.filter((flag) => values[flag] !== undefined && values[flag] !== false);
}

/** `--debounce`'s seconds, or why it is refused. */
function debounceSeconds(text: string): number | string {
  const seconds = /^\d+$/.test(text) ? Number(text) : Number.NaN;
  return seconds >= 1 && seconds <= 3600
    ? seconds
    : `--debounce ${text}: give whole seconds from 1 to 3600 (how long the files stay quiet before the run)`;
}

/**
 * The refusal (a line for stderr) of options that do not go together: `--env` with `--here`, `--timezone`
 * without a schedule, `--debounce` without a file-change trigger or not whole seconds. `trigger`: the trigger type
 * the automation will have (null: not known).
 */
export function refusedOptions(
  verb: 'add' | 'edit',
  values: { env?: string; here?: boolean; timezone?: string; debounce?: string },
  trigger: string | null,
): string | null {
  const why = (text: string): string => `weft automations ${verb}: ${text}\n`;
  if (values.env !== undefined && values.here === true)
    return why('choose --env NAME (a remote environment) or --here (this machine), not both');
  const describe = (type: string): string => (type === 'fileChange' ? 'a file-change' : `a ${type}`);
  if (values.timezone !== undefined && trigger !== null && trigger !== 'schedule')
    return why(
      `--timezone goes with a schedule (--schedule "CRON"); the trigger would be ${describe(trigger)} trigger`,
    );
  if (values.debounce === undefined) return null;
  if (trigger !== null && trigger !== 'fileChange')
    return why(
      `--debounce goes with a file-change trigger (--on-change PATH); the trigger would be ${describe(trigger)} trigger`,
    );
  const seconds = debounceSeconds(values.debounce);
  return typeof seconds === 'string' ? why(seconds) : null;
}

/** The trigger the options of `add` give (checked by the file's schema after). */
export function triggerOf(values: {
  schedule?: string;
  timezone?: string;
  'on-commit'?: string;
  'on-change'?: string;
  debounce?: string;
}): unknown {
  if (values.schedule !== undefined)
    return {
      type: 'schedule',
      cron: values.schedule,
      ...(values.timezone === undefined ? {} : { timezone: values.timezone }),
    };
  if (values['on-commit'] !== undefined) return { type: 'commit', branch: values['on-commit'] };
  if (values['on-change'] !== undefined)
    return {
      type: 'fileChange',
      ...(values['on-change'] === '.' ? {} : { path: values['on-change'] }),
      ...(values.debounce === undefined ? {} : { debounce_seconds: Number(values.debounce) }),
    };
  return { type: 'manual' };
}
