// Every git process Weft runs for the user goes through `src-main/safety/git/run.ts`, the one place that
// neutralises what a repository's own config names: no other file in src-main may start `git` itself.
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = resolve(__dirname, '../../..');
const RUNNER = 'src-main/safety/git/run.ts';

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sources(path);
    return /\.(ts|tsx|js|mjs)$/.test(entry.name) ? [path] : [];
  });
}

/** Ways a file could start a process: Node's child_process (any import form), node-pty, the spawn host. */
const STARTS_PROCESSES =
  /from\s+['"](node:)?child_process['"]|require\(\s*['"](node:)?child_process['"]\s*\)|from\s+['"]node-pty['"]|from\s+['"][^'"]*spawn-host\/hosted-child['"]/;
/** `git` as a program name: a string literal that is exactly git (or a path ending in /git). */
const GIT_PROGRAM = /['"`](?:[^'"`\s]*\/)?git['"`]/;

/** Files that start processes and name `git` as a string: each must be the runner. */
function offenders(files: readonly string[]): string[] {
  return files
    .filter((file) => {
      const text = readFileSync(file, 'utf8');
      return STARTS_PROCESSES.test(text) && GIT_PROGRAM.test(text);
    })
    .map((file) => relative(ROOT, file))
    .filter((file) => file !== RUNNER);
}

describe('git runs through one place', () => {
  it('no file in src-main but the runner starts a process and names git', () => {
    expect(offenders(sources(join(ROOT, 'src-main')))).toEqual([]);
  });

  it('the check finds a bypass, in every form it looks for', () => {
    const dir = mkdtempSync(join(tmpdir(), 'weft-git-bypass-'));
    try {
      const forms = {
        'a.ts': "import { execFile } from 'node:child_process';\nexecFile('git', ['status']);\n",
        'b.ts': 'import * as cp from \'child_process\';\nconst run = promisify(cp.execFile);\nrun("git", []);\n',
        'c.ts': "const { spawn } = require('node:child_process');\nspawn(`/usr/bin/git`, []);\n",
        'd.ts': "import { spawn } from 'node-pty';\nspawn('git', [], {});\n",
        'e.ts': "import { spawnHosted } from '../../util/spawn-host/hosted-child';\nspawnHosted('git', [], o);\n",
        'ok.ts':
          "import { execFile } from 'node:child_process';\nexecFile('bwrap', ['--version']); // .git is protected\n",
      };
      for (const [name, text] of Object.entries(forms)) writeFileSync(join(dir, name), text);
      const found = offenders(sources(dir)).map((f) => f.split('/').at(-1));
      expect(found.sort()).toEqual(['a.ts', 'b.ts', 'c.ts', 'd.ts', 'e.ts']);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
