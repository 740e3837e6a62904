// An automation as its file says it: `WEFT_HOME/automations/<id>.toml`, read by smol-toml and checked by
// zod. Every problem names the file and the key, and says what would be accepted.
import { parse } from 'smol-toml';
import { z } from 'zod';
import { ReasoningEffortValue, SandboxMode, WeftAutomationNotify, describeZodError } from '../../src-preload/protocol';
import { cronProblem } from './cron';

/** An automation's id: its file's name without `.toml`. Lower-case words joined by dashes. */
export const AUTOMATION_ID = /^[a-z0-9][a-z0-9-]{0,63}$/;

const ScheduleTrigger = z
  .object({
    type: z.literal('schedule'),
    /** Five cron fields (or six, seconds first), or `@hourly`, `@daily`, `@weekly`, `@monthly`. */
    cron: z.string().min(1),
    /** An IANA zone; omitted = the machine's zone. */
    timezone: z.string().min(1).optional(),
  })
  .strict()
  .superRefine((trigger, ctx) => {
    const problem = cronProblem(trigger.cron, trigger.timezone);
    if (problem !== null)
      ctx.addIssue({ code: 'custom', path: [problem.startsWith('timezone') ? 'timezone' : 'cron'], message: problem });
  });

/** Only "Run now" (`weft automations run`, the UI) starts it. */
const ManualTrigger = z.object({ type: z.literal('manual') }).strict();

/** A new commit on `branch` of the project (git is polled, at least once a minute). */
const CommitTrigger = z
  .object({
    type: z.literal('commit'),
    branch: z
      .string()
      .min(1)
      .regex(/^(?!-)[^\s~^:?*[\\]+$/, 'give a branch name, e.g. "main"'),
  })
  .strict();

/** A change to a file under `path` (relative to the project; omitted: all of it), once quiet for `debounce_seconds`. */
const FileChangeTrigger = z
  .object({
    type: z.literal('fileChange'),
    path: z
      .string()
      .min(1)
      .refine((p) => !p.startsWith('/') && !p.split('/').includes('..'), 'give a folder inside the project, e.g. "src"')
      .optional(),
    debounce_seconds: z.int().min(1).max(3600).optional(),
  })
  .strict();

export const AutomationTrigger = z.discriminatedUnion('type', [
  ScheduleTrigger,
  ManualTrigger,
  CommitTrigger,
  FileChangeTrigger,
]);
export type AutomationTrigger = z.infer<typeof AutomationTrigger>;

export const AutomationFile = z
  .object({
    name: z.string().min(1),
    /** The project folder (absolute). */
    project: z.string().min(1).startsWith('/', 'give the project as an absolute path'),
    /** What the agent is asked, as the first message of the run's thread. */
    prompt: z.string().min(1),
    /** Disabled automations keep their file and history and never run on their trigger. */
    enabled: z.boolean().default(true),
    /**
     * `worktree` (default): a new git worktree per run, under the worktrees folder; `local`: the project.
     * On the machine the run happens on (`remote`).
     */
    environment: z
      .custom<'worktree' | 'local'>((value) => value === 'worktree' || value === 'local', {
        error: (issue) =>
          typeof issue.input === 'string'
            ? `"${issue.input}" is not how an automation runs: give "worktree" (the default) or "local"; to run it on the remote environment [environments.${issue.input}], set remote = "${issue.input}"`
            : 'give "worktree" (the default) or "local"',
      })
      .default('worktree'),
    /**
     * The remote environment (`[environments.NAME]` of config.toml) whose app server runs it, `project`
     * being a folder there; omitted = this machine. The run is recorded here.
     */
    remote: z
      .string()
      .regex(/^[A-Za-z0-9][A-Za-z0-9._-]*$/, 'give the name of an environment of config.toml ([environments.NAME])')
      .optional(),
    /** Omitted = the project's configured model and effort. */
    model: z.string().min(1).optional(),
    effort: ReasoningEffortValue.optional(),
    /** What the run's commands may write. The approval policy is always `never`: nobody is there to ask. */
    sandbox: SandboxMode.default('workspace-write'),
    /** When a finished run is told: `always`, `changes` (failed or changed files; the default), `never`. */
    notify: WeftAutomationNotify.optional(),
    /** When the schedule starts counting (ISO 8601); a scheduled time before it is not a missed run. */
    created_at: z.iso.datetime({ offset: true }).optional(),
    trigger: AutomationTrigger,
  })
  .strict()
  .superRefine((file, ctx) => {
    // Commits and files are looked at on this machine; a remote project's are there.
    const { type } = file.trigger;
    if (file.remote !== undefined && (type === 'commit' || type === 'fileChange'))
      ctx.addIssue({
        code: 'custom',
        path: ['trigger', 'type'],
        message: `a ${type === 'commit' ? 'commit' : 'file-change'} trigger looks at this machine's ${type === 'commit' ? 'branches' : 'files'}, and this automation runs on environment "${file.remote}": give it a schedule or make it manual, or add the automation on that machine to watch its project there`,
      });
  });
export type AutomationFile = z.infer<typeof AutomationFile>;

export interface Automation extends AutomationFile {
  id: string;
  /** The file it was read from. */
  file: string;
  /** When the file was last changed (ms): where the schedule counts from when `created_at` is absent. */
  modifiedAt: number;
}

/** A file that could not be read as an automation: it is listed with the reason, never run. */
export interface BrokenAutomation {
  id: string;
  file: string;
  problem: string;
}

/** Parses one automation file's text; the error names the file and each bad key. */
export function parseAutomation(
  id: string,
  file: string,
  text: string,
  modifiedAt: number,
): Automation | BrokenAutomation {
  let raw: unknown;
  try {
    raw = parse(text);
  } catch (error) {
    return { id, file, problem: `${file}: not valid TOML: ${error instanceof Error ? error.message : String(error)}` };
  }
  const parsed = AutomationFile.safeParse(raw);
  if (!parsed.success) return { id, file, problem: `${file}: ${describeZodError(parsed.error, '')}` };
  return { ...parsed.data, id, file, modifiedAt };
}

export function isBroken(a: Automation | BrokenAutomation): a is BrokenAutomation {
  return 'problem' in a;
}
