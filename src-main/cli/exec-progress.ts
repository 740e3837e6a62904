import type { ServerNotification, ThreadItem } from '../../src-preload/protocol';

interface Streams {
  stdout: NodeJS.WriteStream | NodeJS.WritableStream;
  stderr: NodeJS.WriteStream | NodeJS.WritableStream;
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

  constructor(private readonly io: Streams) {
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
      case 'commandExecution': {
        const secs = item.durationMs === null ? '' : ` · ${(item.durationMs / 1000).toFixed(2)}s`;
        const status = item.exitCode === null ? (item.processId ? `still running (session ${item.processId})` : item.status) : `exit ${item.exitCode}`;
        this.io.stderr.write(this.dim(`  ${status}${secs}`) + '\n');
        return;
      }
      default:
        return;
    }
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
