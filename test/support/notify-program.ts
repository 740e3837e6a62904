// A `notify` program for tests: a Node script that saves the argv it is called with as one JSON file per
// call (written whole, then renamed) in a folder the test watches, so a test waits for the call itself.
import { watch } from 'node:fs';
import { readFile, readdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { z } from 'zod';

const Saved = z.object({ argv: z.array(z.string()), env: z.record(z.string(), z.string()) });

export interface NotifyRecorder {
  /** `notify` for config.toml: node, the script, and a first argument of its own. */
  argv: string[];
  /** Resolves with the `count`-th call (1-based): its argv, environment and pid, once it has been saved. */
  call(count: number): Promise<{ argv: string[]; env: Record<string, string>; pid: number }>;
}

const SCRIPT = `
const { writeFileSync, renameSync } = require('node:fs');
const dir = process.argv[2];
const name = String(process.hrtime.bigint()) + '-' + process.pid;
writeFileSync(dir + '/.' + name, JSON.stringify({ argv: process.argv.slice(3), env: process.env }));
renameSync(dir + '/.' + name, dir + '/' + name + '.json');
if (process.argv[3] === 'hang') setInterval(() => undefined, 1000);
`;

/** A recorder saving into `dir` (which must exist); `firstArg` is the program's own first argument. */
export async function makeNotifyRecorder(dir: string, firstArg = 'first-arg'): Promise<NotifyRecorder> {
  const script = join(dir, '..', 'notify-program.cjs');
  await writeFile(script, SCRIPT);
  const saved = async (): Promise<string[]> => (await readdir(dir)).filter((f) => f.endsWith('.json')).sort();
  return {
    argv: [process.execPath, script, dir, firstArg],
    call: async (count) => {
      // Changes are counted from before the first look, so one that comes while the folder is read is not missed.
      let changes = 0;
      let wake: (() => void) | null = null;
      const watcher = watch(dir, () => {
        changes += 1;
        wake?.();
      });
      try {
        for (;;) {
          const seen = changes;
          const file = (await saved())[count - 1];
          if (file !== undefined) {
            const saved = Saved.parse(JSON.parse(await readFile(join(dir, file), 'utf8')));
            return { ...saved, pid: Number(/-(\d+)\.json$/.exec(file)?.[1]) };
          }
          if (changes === seen) await new Promise<void>((r) => (wake = r));
          wake = null;
        }
      } finally {
        watcher.close();
      }
    },
  };
}
