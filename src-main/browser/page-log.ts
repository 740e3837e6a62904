// What a page said since the model last asked (`console {}`): its console messages, uncaught errors, failed
// and refused requests, refused downloads and closed popups. Bounded: a page that logs in a loop keeps
// only the latest LOG_MAX_ENTRIES, and the model is told how many were dropped.

export const LOG_MAX_ENTRIES = 200;

export interface LogEntry {
  kind: 'console' | 'pageerror' | 'request' | 'download' | 'popup' | 'crash';
  /** For console messages: log, warning, error…; else the kind again. */
  level: string;
  text: string;
}

export class PageLog {
  private entries: LogEntry[] = [];
  private dropped = 0;

  add(entry: LogEntry): void {
    this.entries.push(entry);
    if (this.entries.length > LOG_MAX_ENTRIES) {
      this.entries.shift();
      this.dropped++;
    }
  }

  /** The entries since the last call, as lines, and forgets them. */
  drain(): string[] {
    const lines = this.entries.map((e) => `[${e.level}] ${e.text}`);
    if (this.dropped > 0)
      lines.unshift(`(${this.dropped} earlier entries were dropped: at most ${LOG_MAX_ENTRIES} are kept)`);
    this.entries = [];
    this.dropped = 0;
    return lines;
  }
}
