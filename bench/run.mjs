// Benchmark runner: `npm run bench [-- name…]`. Each bench/<name>.bench.ts default-exports
// `async () => ({ title, rows: [{ name, value, unit, target?, note? }], notes? })`; it is bundled with
// esbuild and run in a fresh Node process (so one bench's heap never skews another's). Results are kept
// as bench/results/<name>.json and rendered together into bench/RESULTS.md.
import { build } from 'esbuild';
import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { basename, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = fileURLToPath(new URL('.', import.meta.url));
const work = join(here, '.work');
const resultsDir = join(here, 'results');
mkdirSync(work, { recursive: true });
mkdirSync(resultsDir, { recursive: true });

const only = process.argv.slice(2);
const benches = readdirSync(here)
  .filter((f) => f.endsWith('.bench.ts'))
  .map((f) => basename(f, '.bench.ts'))
  .filter((name) => only.length === 0 || only.includes(name))
  .sort();

let failed = 0;
for (const name of benches) {
  const entry = join(work, `${name}.entry.mjs`);
  writeFileSync(
    entry,
    `import run from ${JSON.stringify(join(here, `${name}.bench.ts`))};\nconst result = await run();\nprocess.stdout.write('\\n@@BENCH@@' + JSON.stringify(result) + '\\n');\nprocess.exit(0);\n`,
  );
  const outfile = join(work, `${name}.mjs`);
  await build({
    entryPoints: [entry],
    outfile,
    bundle: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    packages: 'external',
    logLevel: 'warning',
  });
  process.stderr.write(`bench: ${name}…\n`);
  const started = Date.now();
  const run = spawnSync(process.execPath, [outfile], {
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'inherit'],
    maxBuffer: 64 * 1024 * 1024,
  });
  const marker = run.stdout.lastIndexOf('@@BENCH@@');
  if (run.status !== 0 || marker < 0) {
    process.stderr.write(`bench: ${name} failed (exit ${run.status})\n${run.stdout.slice(-2000)}\n`);
    failed += 1;
    continue;
  }
  const result = JSON.parse(run.stdout.slice(marker + '@@BENCH@@'.length).trim());
  result.measuredAt = new Date().toISOString();
  result.node = process.version;
  result.seconds = Math.round((Date.now() - started) / 100) / 10;
  writeFileSync(join(resultsDir, `${name}.json`), `${JSON.stringify(result, null, 2)}\n`);
  process.stderr.write(`bench: ${name} done in ${result.seconds} s\n`);
}

const cpu = cpus()[0]?.model ?? 'unknown CPU';
const sections = readdirSync(resultsDir)
  .filter((f) => f.endsWith('.json'))
  .sort()
  .map((f) => {
    const r = JSON.parse(readFileSync(join(resultsDir, f), 'utf8'));
    const rows = r.rows.map(
      (row) => `| ${row.name} | ${formatValue(row.value)} ${row.unit} | ${row.target ?? ''} | ${row.note ?? ''} |`,
    );
    const notes = (r.notes ?? []).map((n) => `- ${n}`);
    return [
      `## ${r.title}`,
      '',
      // Results saved before they named their Node were all measured on Node v20.20.2.
      `Measured ${r.measuredAt.slice(0, 16).replace('T', ' ')} UTC on Node ${r.node ?? 'v20.20.2'} (\`npm run bench -- ${basename(f, '.json')}\`).`,
      '',
      '| measure | result | target | note |',
      '| --- | --- | --- | --- |',
      ...rows,
      '',
      ...notes,
      '',
    ].join('\n');
  });
writeFileSync(
  join(here, 'RESULTS.md'),
  `# Benchmark results\n\nProduced by \`npm run bench\` (bench/run.mjs) on ${cpu}, ${cpus().length} cores; each section says when and on which Node. Each benchmark runs in its own Node process; whole-process timings include start-up.\n\n${sections.join('\n')}`,
);
process.exit(failed > 0 ? 1 : 0);

function formatValue(v) {
  if (typeof v !== 'number') return String(v);
  if (Number.isInteger(v)) return String(v);
  return v >= 100 ? v.toFixed(0) : v >= 10 ? v.toFixed(1) : v.toFixed(2);
}
