// The README says what the commands do: one list of the other commands, and `weft serve`'s row names the
// options its help has and says what --host changes (it does not claim 127.0.0.1 only).
import { execFile } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const ROOT = resolve(__dirname, '../../..');
const run = promisify(execFile);

describe('README', () => {
  it('lists the other commands once', async () => {
    const readme = await readFile(resolve(ROOT, 'README.md'), 'utf8');
    expect(readme.match(/^Other commands:/gm)).toEqual(['Other commands:']);
  });

  it("describes weft serve's address and token as its help does", async () => {
    const readme = await readFile(resolve(ROOT, 'README.md'), 'utf8');
    const row = readme.split('\n').find((line) => line.startsWith('| web UI |'));
    expect(row).toBeDefined();
    expect(row).not.toContain('127.0.0.1 only');
    expect(row).toContain('listens on 127.0.0.1 unless `--host`');
    expect(row).toContain('requires the token');
    // The built command's help (`npm run build` first).
    const help = (await run(process.execPath, [resolve(ROOT, 'bin/weft.js'), 'serve', '--help'])).stdout;
    for (const flag of row?.match(/--[a-z-]+/g) ?? []) expect(help).toContain(flag);
  });
});
