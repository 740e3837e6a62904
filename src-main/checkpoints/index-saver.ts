/**
 * When a tracker's index is written. Writing it whole costs time proportional to the project, so it is
 * never on a command's critical path: `soon` writes it a little later, `now` when it must be exact on
 * disk (gc, closing). One write at a time, of a copy, so looks may go on meanwhile; a failed write leaves
 * the index marked changed (and only means stats are compared again by the next process).
 */
import type { Entry } from './types';
import { saveIndex } from './workspace-index';

export class IndexSaver {
  /** The index changed since it was last written. */
  dirty = false;
  private timer: NodeJS.Timeout | null = null;
  private writing: Promise<void> | null = null;

  constructor(
    private readonly file: string,
    private readonly root: string,
    /** The entries to write (copied before writing). */
    private readonly entries: () => ReadonlyMap<string, Entry>,
  ) {}

  /** Writes the index now; a cheap no-op when nothing changed. */
  async now(): Promise<void> {
    if (this.timer !== null) clearTimeout(this.timer);
    this.timer = null;
    while (this.writing !== null) await this.writing;
    if (!this.dirty) return;
    this.dirty = false;
    this.writing = saveIndex(this.file, this.root, new Map(this.entries()))
      .catch((error: unknown) => {
        this.dirty = true;
        throw error;
      })
      .finally(() => {
        this.writing = null;
      });
    await this.writing;
  }

  /** Writes the index after `delayMs`, unless a write is already planned or nothing changed. */
  soon(delayMs: number): void {
    if (this.timer !== null || !this.dirty) return;
    this.timer = setTimeout(() => {
      this.timer = null;
      this.now().catch(() => {
        /* the next walk rebuilds it */
      });
    }, delayMs);
    this.timer.unref();
  }
}
