/**
 * Which paths of a workspace checkpoints leave out: `.git` always, and whatever the project's
 * `.gitignore` files (at any depth) and `.git/info/exclude` ignore, with git's precedence (a deeper
 * file overrides a shallower one; `!` re-includes). Read-only: nothing in `.git` is ever written.
 */
import { readFile } from 'node:fs/promises';
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

  /**
   * `rel` is relative to the root; `isDir` decides dir-only patterns (`build/`). The rules of a folder
   * are read the first time a path below it is asked about.
   */
  async ignored(rel: string, isDir: boolean): Promise<boolean> {
    const parts = rel.split('/');
    if (parts.includes('.git')) return true;
    let verdict = false;
    let dirRel = '';
    for (let i = 0; i < parts.length; i += 1) {
      const rules = this.byDir.get(dirRel) ?? (await this.rulesFor(dirRel));
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

  private async rulesFor(dirRel: string): Promise<Ignore | null> {
    const cached = this.byDir.get(dirRel);
    if (cached !== undefined) return cached;
    const texts: string[] = [];
    if (dirRel === '') texts.push(await readText(join(this.root, '.git', 'info', 'exclude')));
    texts.push(await readText(fsPath(this.root, childKey(dirRel, '.gitignore'))));
    const body = texts.join('\n');
    const rules = body.trim() === '' ? null : ignore().add(body);
    this.byDir.set(dirRel, rules);
    return rules;
  }
}

async function readText(path: string | Buffer): Promise<string> {
  try {
    return await readFile(path, 'utf8');
  } catch {
    return '';
  }
}
