// Checkpoints: what looking at a workspace costs around one command on a 100,000-file tree (the
// first look, which walks and stores everything once, then each command: the look before it and the
// look after it, with the directory watcher and with a plain walk), and how big the store grows over
// 200 turns of small edits on a 2,000-file project.
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { CheckpointService } from '../src-main/checkpoints/service';
import { median, p95, type BenchRow } from './measure';

function sourceText(a: number, b: number, c: number, lines: number): string {
  const out: string[] = [`// module ${a}/${b}/${c}`];
  for (let i = 0; i < lines; i += 1)
    out.push(`export const value${i} = compute(${a}, ${b}, ${c}, ${i}); // keep the linter happy`);
  return `${out.join('\n')}\n`;
}

function makeTree(root: string, top: number, mid: number, files: number, lines: number): number {
  let n = 0;
  for (let a = 0; a < top; a += 1) {
    for (let b = 0; b < mid; b += 1) {
      const dir = join(root, `pkg${a}`, `mod${b}`);
      mkdirSync(dir, { recursive: true });
      for (let c = 0; c < files; c += 1) {
        writeFileSync(join(dir, `f${c}.ts`), sourceText(a, b, c, lines));
        n += 1;
      }
    }
  }
  writeFileSync(join(root, '.gitignore'), 'node_modules/\ndist/\n');
  return n;
}

function cpuMs(usage: NodeJS.CpuUsage): number {
  return (usage.user + usage.system) / 1000;
}

async function perCommand(
  root: string,
  home: string,
  watch: boolean,
  runs: number,
): Promise<{ first: number; costs: number[]; cpu: number[]; mode: string }> {
  const service = new CheckpointService({ weftHome: home, watch });
  let started = performance.now();
  await service.beforeChange(root);
  const first = performance.now() - started;
  const costs: number[] = [];
  const cpu: number[] = [];
  let mode = '';
  for (let i = 0; i < runs; i += 1) {
    started = performance.now();
    let cpuStarted = process.cpuUsage();
    await service.beforeChange(root);
    let cost = performance.now() - started;
    let cpuCost = cpuMs(process.cpuUsage(cpuStarted));
    // Names differ per run: a second run over the same tree must change things again.
    const tag = `${watch ? 'w' : 'k'}${i}`;
    execFileSync(
      'sh',
      [
        '-c',
        `echo "// edit ${tag}" >> pkg1/mod1/f1.ts && echo ${tag} > pkg2/mod3/new-${tag}.ts && rm pkg${watch ? 3 : 4}/mod4/f${i}.ts && mkdir -p gen/r-${tag} && echo ${tag} > gen/r-${tag}/out.ts`,
      ],
      { cwd: root },
    );
    started = performance.now();
    cpuStarted = process.cpuUsage();
    const record = await service.afterToolCall({ threadId: 'bench', turnId: `turn-${i}`, callId: null, root });
    cost += performance.now() - started;
    cpuCost += cpuMs(process.cpuUsage(cpuStarted));
    if (record === null || record.changes.length < 5)
      throw new Error(
        `the look after command ${i} missed changes: ${JSON.stringify(record?.changes.map((c) => c.path))}`,
      );
    mode = watch ? ((await service.tracker(root)).watchedDirs > 0 ? 'watch' : 'walk') : 'walk';
    costs.push(cost);
    cpu.push(cpuCost);
  }
  await service.dispose();
  return { first, costs, cpu, mode };
}

export default async function run(): Promise<{ title: string; rows: BenchRow[]; notes: string[] }> {
  const rows: BenchRow[] = [];
  const loadBefore = loadavg()[0] ?? 0;
  const scratch = mkdtempSync(join(tmpdir(), 'weft-bench-ckpt-'));
  try {
    // ---- cost per command on a 100,000-file tree
    const big = join(scratch, 'big');
    const count = makeTree(big, 50, 40, 50, 12);
    const home = join(scratch, 'home');
    const watched = await perCommand(big, home, true, 30);
    rows.push({
      name: `first look at ${count.toLocaleString('en')} files (walk, hash and store all)`,
      value: Math.round(watched.first),
      unit: 'ms',
      note: 'once per workspace; later starts read the saved index',
    });
    rows.push({
      name: 'per command, directory watcher: median of 30 (look before + look after)',
      value: Math.round(median(watched.costs) * 10) / 10,
      unit: 'ms',
      target: '≤ 150 ms',
      note: `p95 ${Math.round(p95(watched.costs))} ms`,
    });
    rows.push({
      name: 'per command, directory watcher: CPU time, median of 30',
      value: Math.round(median(watched.cpu) * 10) / 10,
      unit: 'ms',
      note: 'what the looks cost without waiting for a core',
    });
    const walked = await perCommand(big, home, false, 3);
    rows.push({
      name: 'first look in a new process (index on disk: stats only)',
      value: Math.round(walked.first),
      unit: 'ms',
    });
    rows.push({
      name: 'per command, whole-tree walk (no watcher): median of 3',
      value: Math.round(median(walked.costs)),
      unit: 'ms',
      note: 'macOS, or after lost events',
    });
    rmSync(big, { recursive: true, force: true });
    rmSync(home, { recursive: true, force: true });

    // ---- store size after 200 turns
    const project = join(scratch, 'project');
    const files = makeTree(project, 10, 10, 20, 40);
    const home2 = join(scratch, 'home2');
    const service = new CheckpointService({ weftHome: home2, retention: { keepTurns: 1000, keepDays: 365 } });
    await service.beforeChange(project);
    const baseline = await service.sizeOnDisk();
    const projectBytes = Number(execFileSync('du', ['-sb', project], { encoding: 'utf8' }).split('\t')[0]);
    for (let turn = 0; turn < 200; turn += 1) {
      await service.beforeChange(project);
      const a = turn % 10;
      const b = (turn * 3) % 10;
      execFileSync(
        'sh',
        [
          '-c',
          `for c in 0 1 2 3 4; do echo "export const turn${turn}_$c = ${turn};" >> pkg${a}/mod${b}/f$c.ts; done && echo "// new ${turn}" > pkg${b}/mod${a}/added${turn}.ts && rm -f pkg${b}/mod${b}/f${(turn % 19) + 1}.ts`,
        ],
        { cwd: project },
      );
      await service.afterToolCall({ threadId: 'bench', turnId: `turn-${turn}`, callId: null, root: project });
    }
    const after = await service.sizeOnDisk();
    rows.push({
      name: `store after the first look at ${files.toLocaleString('en')} files (${(projectBytes / 1024 / 1024).toFixed(1)} MiB on disk)`,
      value: Math.round((baseline / 1024 / 1024) * 10) / 10,
      unit: 'MiB',
    });
    rows.push({
      name: 'store after 200 turns (5 edits, 1 new file, 1 deletion each)',
      value: Math.round((after / 1024 / 1024) * 10) / 10,
      unit: 'MiB',
      note: `+${Math.round((after - baseline) / 1024)} KiB for the 200 turns`,
    });
    await service.dispose();
    const kept = new CheckpointService({ weftHome: home2, retention: { keepTurns: 50, keepDays: 0 } });
    await kept.gc(0);
    rows.push({
      name: 'after `weft checkpoints gc` keeping the last 50 turns',
      value: Math.round(((await kept.sizeOnDisk()) / 1024 / 1024) * 10) / 10,
      unit: 'MiB',
    });
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
  return {
    title: 'Checkpoints (100,000-file tree; 200 turns)',
    rows,
    notes: [
      'Per command = the look before the command plus the look after it (both on the critical path of a tool call); the command itself is not counted.',
      'Each command edits one file, creates two, deletes one and makes a new nested folder.',
      `Machine load (1-minute average) ${loadBefore.toFixed(1)} before and ${(loadavg()[0] ?? 0).toFixed(1)} after the run, on ${availableParallelism()} cores: wall times include waiting for a core.`,
    ],
  };
}
