// A workspace, a Weft home and a checkpoint service for checkpoint tests, plus a whole-tree picture
// (content hash, mode, link target of every path) to compare states with one toEqual.
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { lstatSync, readdirSync, readFileSync, readlinkSync } from 'node:fs';
import { join } from 'node:path';
import { CheckpointService, type CheckpointServiceOptions } from '../../../src-main/checkpoints/service';
import type { CheckpointRecord } from '../../../src-main/checkpoints/types';
import { makeTempWorkspace, makeWeftHome, type TempWorkspace, type WeftHome } from '../../support/workspace';

export interface Fixture {
  ws: TempWorkspace;
  home: WeftHome;
  service: CheckpointService;
  /** Runs a shell script in the workspace, as a command the agent ran. */
  sh(script: string): string;
  /** One tool call of a turn: takes stock, runs the script, records what changed. */
  call(turnId: string, script: string): Promise<CheckpointRecord | null>;
  cleanup(): Promise<void>;
}

export const THREAD = 'thread-1';

export async function makeFixture(
  files: Record<string, string> = {},
  options: Partial<CheckpointServiceOptions> = {},
): Promise<Fixture> {
  const ws = await makeTempWorkspace(files);
  const home = await makeWeftHome();
  const service = new CheckpointService({ weftHome: home.dir, ...options });
  const sh = (script: string): string => execFileSync('sh', ['-c', script], { cwd: ws.dir, encoding: 'utf8' });
  let calls = 0;
  return {
    ws,
    home,
    service,
    sh,
    async call(turnId, script) {
      await service.beforeChange(ws.dir);
      sh(script);
      calls += 1;
      return service.afterToolCall({ threadId: THREAD, turnId, callId: `call-${calls}`, root: ws.dir });
    },
    async cleanup() {
      await service.dispose();
      await ws.cleanup();
      await home.cleanup();
    },
  };
}

/** Every path under `root` (but `.git`) → what it is. */
export function picture(root: string, skip: (rel: string) => boolean = () => false): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (dirRel: string): void => {
    for (const name of readdirSync(dirRel === '' ? root : join(root, dirRel)).sort()) {
      if (name === '.git') continue;
      const rel = dirRel === '' ? name : `${dirRel}/${name}`;
      if (skip(rel)) continue;
      const abs = join(root, rel);
      const st = lstatSync(abs);
      if (st.isSymbolicLink()) out[rel] = `link:${readlinkSync(abs)}`;
      else if (st.isDirectory()) {
        out[rel] = `dir:${(st.mode & 0o777).toString(8)}`;
        walk(rel);
      } else
        out[rel] =
          `file:${(st.mode & 0o777).toString(8)}:${createHash('sha256').update(readFileSync(abs)).digest('hex').slice(0, 16)}`;
    }
  };
  walk('');
  return out;
}

export function git(cwd: string, ...args: string[]): string {
  return execFileSync('git', ['-C', cwd, ...args], {
    encoding: 'utf8',
    env: {
      ...process.env,
      GIT_AUTHOR_NAME: 't',
      GIT_AUTHOR_EMAIL: 't@example.com',
      GIT_COMMITTER_NAME: 't',
      GIT_COMMITTER_EMAIL: 't@example.com',
    },
  });
}
