import { isAbsolute, relative } from 'node:path';
import type { CollabAgentTool, FileUpdateChange, ServerNotification, ThreadItem } from '../../src-preload/protocol';

interface Streams {
  stdout: NodeJS.WriteStream | NodeJS.WritableStream;
  stderr: NodeJS.WriteStream | NodeJS.WritableStream;
}

/** `preToolUse` → `PreToolUse`, as config files and Codex's progress spell events. */
function hookEventLabel(name: string): string {
  return name.charAt(0).toUpperCase() + name.slice(1);
}

function isTty(stream: NodeJS.WritableStream): boolean {
  return 'isTTY' in stream && stream.isTTY === true;
}

/**
 * Human progress for `weft exec`: commands and their exit codes on stderr, the answer streamed live.
 * When stdout is a terminal the answer streams there (once); when stdout is piped the answer streams
 * on stderr and only the final text goes to stdout.
 */
export class ExecProgress {
  private readonly color: boolean;
  private readonly answerOnStdout: boolean;
  private streamingItem: string | null = null;
  private lastAgentText: string | null = null;
  private reasoningOpen = false;

  /** `cwd`: patch paths are shown relative to it. */
  constructor(
    private readonly io: Streams,
    private readonly cwd: string = process.cwd(),
  ) {
    this.color = isTty(io.stderr) && !process.env['NO_COLOR'];
    this.answerOnStdout = isTty(io.stdout);
  }

  /** The last agent message of the run: what `weft exec` prints as its answer. */
  get finalAnswer(): string | null {
    return this.lastAgentText;
  }

  /** Whether the answer has already reached stdout while streaming. */
  get answerPrinted(): boolean {
    return this.answerOnStdout && this.lastAgentText !== null;
  }

  handle(n: ServerNotification): void {
    switch (n.method) {
      case 'item/started':
        this.onStarted(n.params.item);
        return;
      case 'item/agentMessage/delta':
        this.endReasoning();
        this.streamingItem = n.params.itemId;
        (this.answerOnStdout ? this.io.stdout : this.io.stderr).write(n.params.delta);
        return;
      case 'item/reasoning/summaryTextDelta':
        if (!this.reasoningOpen) {
          this.io.stderr.write(this.dim('thinking: '));
          this.reasoningOpen = true;
        }
        this.io.stderr.write(this.dim(n.params.delta));
        return;
      case 'item/completed':
        this.onCompleted(n.params.item);
        return;
      case 'hook/started':
        this.endReasoning();
        this.io.stderr.write(`hook: ${hookEventLabel(n.params.run.eventName)}\n`);
        return;
      case 'hook/completed': {
        this.endReasoning();
        // Codex's words (`hook: PreToolUse Completed`), then what the hook said, indented.
        const { run } = n.params;
        const status = run.status.charAt(0).toUpperCase() + run.status.slice(1);
        this.io.stderr.write(`hook: ${hookEventLabel(run.eventName)} ${status}\n`);
        for (const entry of run.entries) this.io.stderr.write(this.dim(`  ${entry.kind}: ${entry.text}`) + '\n');
        return;
      }
      case 'warning':
        this.endReasoning();
        this.io.stderr.write(`weft: ${n.params.message}\n`);
        return;
      case 'error':
        this.endReasoning();
        if (n.params.willRetry) {
          const detail = n.params.error.additionalDetails ? ` (${n.params.error.additionalDetails})` : '';
          this.io.stderr.write(this.dim(`${n.params.error.message}${detail}`) + '\n');
        }
        return;
      default:
        return;
    }
  }

  private onStarted(item: ThreadItem): void {
    if (item.type === 'commandExecution') {
      this.endReasoning();
      this.io.stderr.write(`${this.bold('$')} ${item.command}${this.dim(`  (in ${item.cwd})`)}\n`);
    } else if (item.type === 'mcpToolCall') {
      this.endReasoning();
      this.io.stderr.write(`${this.bold('⚙')} ${item.server}/${item.tool}\n`);
    }
  }

  private onCompleted(item: ThreadItem): void {
    switch (item.type) {
      case 'agentMessage':
        if (this.streamingItem === item.id) (this.answerOnStdout ? this.io.stdout : this.io.stderr).write('\n');
        this.streamingItem = null;
        this.lastAgentText = item.text;
        return;
      case 'reasoning':
        this.endReasoning();
        return;
      case 'fileChange': {
        this.endReasoning();
        for (const change of item.changes) this.io.stderr.write(`${this.bold('✎')} ${this.describeChange(change)}\n`);
        const status =
          item.status === 'completed' ? 'applied' : item.status === 'inProgress' ? 'in progress' : item.status;
        this.io.stderr.write(this.dim(`  ${status}`) + '\n');
        return;
      }
      case 'collabAgentToolCall': {
        // `⇄ wait_agent 01a2…: completed`, then how each sub-agent stood (its answer's first line).
        this.endReasoning();
        const agents = item.receiverThreadIds.join(', ');
        this.io.stderr.write(`${this.bold('⇄')} ${COLLAB_NAMES[item.tool]}${agents === '' ? '' : ` ${agents}`}\n`);
        for (const [id, state] of Object.entries(item.agentsStates)) {
          const message = state.message === null ? '' : ` — ${state.message.split('\n')[0] ?? ''}`;
          this.io.stderr.write(this.dim(`  ${id}: ${state.status}${message}`) + '\n');
        }
        this.io.stderr.write(this.dim(`  ${item.status}`) + '\n');
        return;
      }
      case 'commandExecution': {
        const secs = item.durationMs === null ? '' : ` · ${(item.durationMs / 1000).toFixed(2)}s`;
        const status =
          item.exitCode === null
            ? item.processId
              ? `still running (session ${item.processId})`
              : item.status
            : `exit ${item.exitCode}`;
        this.io.stderr.write(this.dim(`  ${status}${secs}`) + '\n');
        return;
      }
      default:
        return;
    }
  }

  /** `update src/a.ts (+3 −1)`, `add b.ts (+10)`, `update a.ts → b.ts (+1 −1)`. */
  private describeChange(change: FileUpdateChange): string {
    const show = (path: string): string => {
      const rel = isAbsolute(path) ? relative(this.cwd, path) : path;
      return rel === '' || rel.startsWith('..') ? path : rel;
    };
    const { added, removed } = countLines(change);
    const counts = [added > 0 ? `+${added}` : null, removed > 0 ? `−${removed}` : null]
      .filter((c) => c !== null)
      .join(' ');
    const target =
      change.kind.type === 'update' && change.kind.move_path !== null
        ? `${show(change.path)} → ${show(change.kind.move_path)}`
        : show(change.path);
    return `${change.kind.type} ${target}${counts === '' ? '' : ` (${counts})`}`;
  }

  private endReasoning(): void {
    if (!this.reasoningOpen) return;
    this.io.stderr.write('\n');
    this.reasoningOpen = false;
  }

  private dim(s: string): string {
    return this.color ? `\x1b[2m${s}\x1b[22m` : s;
  }

  private bold(s: string): string {
    return this.color ? `\x1b[1m${s}\x1b[22m` : s;
  }
}

/** The sub-agent tools by the names the model calls them. */
const COLLAB_NAMES = {
  spawnAgent: 'spawn_agent',
  sendInput: 'send_input',
  resumeAgent: 'resume_agent',
  wait: 'wait_agent',
  closeAgent: 'close_agent',
} as const satisfies Record<CollabAgentTool, string>;

/** Lines a change adds and removes. Add and delete diffs may be the bare file content. */
function countLines(change: FileUpdateChange): { added: number; removed: number } {
  const lines = change.diff.split('\n');
  if (lines[lines.length - 1] === '') lines.pop();
  const marked = lines.some((l) => l.startsWith('@@') || l.startsWith('+') || l.startsWith('-'));
  if (!marked && change.kind.type !== 'update') {
    return change.kind.type === 'add' ? { added: lines.length, removed: 0 } : { added: 0, removed: lines.length };
  }
  let added = 0;
  let removed = 0;
  for (const line of lines) {
    if (line.startsWith('+++') || line.startsWith('---')) continue;
    if (line.startsWith('+')) added += 1;
    else if (line.startsWith('-')) removed += 1;
  }
  return { added, removed };
}
