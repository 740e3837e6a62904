/**
 * A tracker's picture of a workspace: the entry of every known path, and the names directly inside
 * each folder ('' = the root), so that a folder's known subtree costs what it holds rather than a pass
 * over the whole index.
 */
import type { Entry } from './types';

export class EntryIndex {
  readonly entries = new Map<string, Entry>();
  private readonly children = new Map<string, Set<string>>();
  /** During a watch-mode look: each path's entry before the look, from its first change on. */
  touched: Map<string, Entry | null> | null = null;

  get(rel: string): Entry | undefined {
    return this.entries.get(rel);
  }

  /** Sets or removes an entry, remembering its value before this look (watch mode). */
  put(rel: string, entry: Entry | null): void {
    if (this.touched !== null && !this.touched.has(rel)) this.touched.set(rel, this.entries.get(rel) ?? null);
    const slash = rel.lastIndexOf('/');
    const dir = slash < 0 ? '' : rel.slice(0, slash);
    const name = rel.slice(slash + 1);
    if (entry === null) {
      if (!this.entries.delete(rel)) return;
      const names = this.children.get(dir);
      names?.delete(name);
      if (names?.size === 0) this.children.delete(dir);
      return;
    }
    if (!this.entries.has(rel)) {
      let names = this.children.get(dir);
      if (names === undefined) {
        names = new Set();
        this.children.set(dir, names);
      }
      names.add(name);
    }
    this.entries.set(rel, entry);
  }

  /** Every known path below the folder `rel` (not `rel` itself). */
  below(rel: string): string[] {
    const out: string[] = [];
    const stack = [rel];
    for (let dir = stack.pop(); dir !== undefined; dir = stack.pop()) {
      const names = this.children.get(dir);
      if (names === undefined) continue;
      for (const name of names) {
        const path = `${dir}/${name}`;
        out.push(path);
        stack.push(path);
      }
    }
    return out;
  }
}
