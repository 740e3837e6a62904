/**
 * Which paths of a workspace checkpoints leave out: `.git` always, and whatever the project's
 * `.gitignore` files (at any depth) and `.git/info/exclude` ignore, with git's precedence (a deeper
 * file overrides a shallower one; `!` re-includes). Read-only: nothing in `.git` is ever written.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import ignore, { type Ignore } from 'ignore';
import { childKey, fsPath } from './path-key';

export class IgnoreRules {
  private readonly byDir = new Map<string, Ignore | null>();

  constructor(private readonly root: string) {}

  /** Forget what was read (a `.gitignore` changed). */
  reset(): void {
    this.byDir.clear();
  }

  /** `rel` is relative to the root; `isDir` decides dir-only patterns (`build/`). */
  ignored(rel: string, isDir: boolean): boolean {
    const parts = rel.split('/');
    if (parts.includes('.git')) return true;
    let verdict = false;
    let dirRel = '';
    for (let i = 0; i < parts.length; i += 1) {
      const rules = this.rulesFor(dirRel);
      if (rules !== null) {
        const sub = parts.slice(i).join('/') + (isDir ? '/' : '');
        const result = rules.test(sub);
        if (result.ignored) verdict = true;
        else if (result.unignored) verdict = false;
      }
      dirRel = dirRel === '' ? (parts[i] ?? '') : `${dirRel}/${parts[i] ?? ''}`;
    }
    return verdict;
  }

  private rulesFor(dirRel: string): Ignore | null {
    const cached = this.byDir.get(dirRel);
    if (cached !== undefined) return cached;
    const texts: string[] = [];
    if (dirRel === '') texts.push(readText(join(this.root, '.git', 'info', 'exclude')));
    texts.push(readText(fsPath(this.root, childKey(dirRel, '.gitignore'))));
    const body = texts.join('\n');
    const rules = body.trim() === '' ? null : ignore().add(body);
    this.byDir.set(dirRel, rules);
    return rules;
  }
}

function readText(path: string | Buffer): string {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return '';
  }
}
