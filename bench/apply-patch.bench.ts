// `weft apply-patch` as a whole process, start-up included: a 2,000-hunk patch (3 lines of context
// each) on a 200,000-line file, and a patch adding 500 files of 40 lines. Codex's Rust apply_patch on
// the same inputs: about 85 ms and 95 ms.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { measureProcess, median } from './measure';

const RUNS = 11;
const WEFT = resolve(process.cwd(), 'bin/weft.js');

function bigFile(): { content: string; patch: string } {
  const lines: string[] = [];
  for (let i = 0; i < 200_000; i++) lines.push(`line ${i} of the big file: value = ${(i * 7919) % 100_003};`);
  const patch = ['*** Begin Patch', '*** Update File: big.txt'];
  for (let h = 0; h < 2_000; h++) {
    const at = 50 + h * 99;
    patch.push('@@');
    for (let c = at - 3; c < at; c++) patch.push(` ${lines[c]}`);
    patch.push(`-${lines[at]}`, `+${lines[at]} // changed ${h}`);
    for (let c = at + 1; c <= at + 3; c++) patch.push(` ${lines[c]}`);
  }
  patch.push('*** End Patch');
  return { content: `${lines.join('\n')}\n`, patch: patch.join('\n') };
}

function manyFiles(): string {
  const patch = ['*** Begin Patch'];
  for (let f = 0; f < 500; f++) {
    patch.push(`*** Add File: pkg${f % 10}/file${f}.ts`);
    for (let l = 0; l < 40; l++) patch.push(`+export const value${l} = ${f * 40 + l}; // generated line ${l}`);
  }
  patch.push('*** End Patch');
  return patch.join('\n');
}

async function timeCase(setup: (dir: string) => Promise<string>): Promise<{ wall: number; peak: number }> {
  const walls: number[] = [];
  const peaks: number[] = [];
  for (let i = 0; i < RUNS + 1; i++) {
    const dir = await mkdtemp(join(tmpdir(), 'weft-bench-patch-'));
    const patchFile = await setup(dir);
    const r = await measureProcess(['sh', '-c', `exec "${process.execPath}" "${WEFT}" apply-patch < "${patchFile}"`], {
      cwd: dir,
    });
    await rm(dir, { recursive: true, force: true });
    if (r.exitCode !== 0) throw new Error(`apply-patch failed: ${r.stderr.slice(0, 500)}`);
    if (i === 0) continue;
    walls.push(r.wallMs);
    peaks.push(r.peakRssMiB);
  }
  return { wall: median(walls), peak: median(peaks) };
}

export default async function run() {
  const big = bigFile();
  const adds = manyFiles();
  const large = await timeCase(async (dir) => {
    await writeFile(join(dir, 'big.txt'), big.content);
    await writeFile(join(dir, 'p.patch'), big.patch);
    return join(dir, 'p.patch');
  });
  const many = await timeCase(async (dir) => {
    await writeFile(join(dir, 'p.patch'), adds);
    return join(dir, 'p.patch');
  });
  const bare = await timeCase(async (dir) => {
    await writeFile(join(dir, 'p.patch'), '*** Begin Patch\n*** Add File: a.txt\n+a\n*** End Patch');
    return join(dir, 'p.patch');
  });
  return {
    title: 'weft apply-patch (whole process)',
    rows: [
      {
        name: '2,000 hunks on a 200,000-line file: wall (median of 11)',
        value: large.wall,
        unit: 'ms',
        target: '≈ 85 ms (Codex, Rust)',
        note: `peak RSS ${large.peak.toFixed(0)} MiB`,
      },
      {
        name: 'add 500 files of 40 lines: wall (median of 11)',
        value: many.wall,
        unit: 'ms',
        target: '≈ 95 ms (Codex, Rust)',
        note: `peak RSS ${many.peak.toFixed(0)} MiB`,
      },
      {
        name: 'one-line add (start-up floor): wall (median of 11)',
        value: bare.wall,
        unit: 'ms',
        note: `peak RSS ${bare.peak.toFixed(0)} MiB`,
      },
    ],
    notes: ['The start-up floor row is Node start + the apply-patch chunk; the difference to it is the work itself.'],
  };
}
