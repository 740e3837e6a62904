// `weft serve` holding many threads, clicked through with the mouse in headless Chromium: a project of 50
// saved threads with an MCP server configured (every loaded thread starts its own server process), each
// thread opened in turn from the sidebar, newest first. Reported: the MCP server processes running once the
// server has let go of the threads left behind (and the most seen at once), the server's resident memory
// along the way, and how long a click takes to show its thread. WEFT_BENCH_THREADS changes the count;
// WEFT_E2E_CLI runs another build (e.g. an older one, for comparison).
import { existsSync, readFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { launchBrowser } from '../test/support/chromium';
import { clickCentre, wheelIntoView } from '../test/support/mouse';
import { childrenRunning, rssMiB } from '../test/support/proc';
import { saveThreads } from '../test/support/saved-threads';
import { startServe, stop } from '../test/support/weft-serve';
import { makeTempWorkspace, makeWeftHome } from '../test/support/workspace';
import type { BenchRow } from './measure';

const THREADS = Number(process.env['WEFT_BENCH_THREADS'] ?? 50);

/** The repository (the bench runs bundled from bench/.work). */
function repoRoot(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (let i = 0; i < 6; i++) {
    if (existsSync(join(dir, 'package.json')) && existsSync(join(dir, 'src-renderer'))) return dir;
    dir = dirname(dir);
  }
  return process.cwd();
}

const QUIET = join(repoRoot(), 'test', 'fixtures', 'mcp', 'quiet-server.mjs');
/** How long the server may take to let go of the threads left behind before the count is taken. */
const SETTLE_MS = 30_000;

const CONFIG = [
  'model = "mock-model"',
  'model_provider = "mock"',
  'approval_policy = "untrusted"',
  'sandbox_mode = "danger-full-access"',
  '',
  // No turn runs: nothing asks the model.
  '[model_providers.mock]',
  'name = "Mock"',
  'base_url = "http://127.0.0.1:9/v1"',
  'env_key = "MOCK_API_KEY"',
  'wire_api = "responses"',
  '',
  '[mcp_servers.quiet]',
  `command = ${JSON.stringify(process.execPath)}`,
  `args = [${JSON.stringify(QUIET)}]`,
  '',
].join('\n');

function percentile(values: readonly number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))] ?? 0;
}

export default async function run(): Promise<{ title: string; rows: BenchRow[]; notes: string[] }> {
  if (!existsSync(QUIET)) throw new Error(`the MCP server fixture is missing: ${QUIET}`);
  const workspace = await makeTempWorkspace({ 'README.md': '# Bench project\n' });
  const home = await makeWeftHome(CONFIG);
  const prompts = Array.from({ length: THREADS }, (_, i) => `Topic ${i}`);
  await saveThreads(home.dir, workspace.dir, prompts);
  const served = await startServe(workspace.dir, home.dir, { serveEnv: { MOCK_API_KEY: 'x' } });
  const pid = served.child.pid ?? 0;
  const session = await launchBrowser({ viewport: { width: 1400, height: 900 } });
  const load = loadavg()[0] ?? 0;
  try {
    const { page } = session;
    page.setDefaultTimeout(30_000);
    await page.goto(served.url);
    const threads = page.getByRole('navigation', { name: 'Threads' });
    await threads.getByRole('button', { name: prompts[prompts.length - 1] ?? '', exact: true }).waitFor();
    const mcp = (): number => childrenRunning(pid, QUIET).length;
    const rss: { clicks: number; mib: number }[] = [{ clicks: 0, mib: rssMiB(pid) }];
    const clickMs: number[] = [];
    let peak = 0;
    for (const [clicked, prompt] of [...prompts].reverse().entries()) {
      const row = threads.getByRole('button', { name: prompt, exact: true });
      await wheelIntoView(page, row, threads);
      const started = performance.now();
      await clickCentre(page, row);
      await page
        .getByRole('region', { name: 'Conversation' })
        .getByText(`Answer to ${prompt}.`, { exact: true })
        .waitFor();
      clickMs.push(performance.now() - started);
      peak = Math.max(peak, mcp());
      if ((clicked + 1) % 10 === 0) rss.push({ clicks: clicked + 1, mib: rssMiB(pid) });
    }
    const deadline = Date.now() + SETTLE_MS;
    while (mcp() > 6 && Date.now() < deadline) await new Promise((done) => setTimeout(done, 100));
    const settled = mcp();
    const last = rss[rss.length - 1]?.mib ?? 0;
    const afterTen = rss.find((s) => s.clicks === 10)?.mib ?? 0;
    const rows: BenchRow[] = [
      {
        name: `click through ${THREADS} threads: MCP server processes left`,
        value: settled,
        unit: 'processes',
        target: '≤ 6',
        note: `most at once while clicking: ${peak}; each loaded thread runs one`,
      },
      {
        name: `click through ${THREADS} threads: server RSS after`,
        value: last,
        unit: 'MiB',
        note: `before the first click ${rss[0]?.mib ?? 0} MiB; every 10 clicks: ${rss.map((s) => s.mib).join(', ')} MiB`,
      },
      {
        name: `click through ${THREADS} threads: RSS growth after the first 10`,
        value: Math.round((last - afterTen) * 10) / 10,
        unit: 'MiB',
        note: `${Math.round(((last - afterTen) / Math.max(1, THREADS - 10)) * 100) / 100} MiB per thread opened and let go`,
      },
      {
        name: `click through ${THREADS} threads: click → thread shown, median`,
        value: Math.round(percentile(clickMs, 50)),
        unit: 'ms',
        note: `p95 ${Math.round(percentile(clickMs, 95))} ms, slowest ${Math.round(percentile(clickMs, 100))} ms`,
      },
    ];
    const notes = [
      `Threads saved straight into the home (one turn each), opened from the sidebar with the mouse wheel and clicks; the MCP server is test/fixtures/mcp/quiet-server.mjs.`,
      `Machine load (1-minute average) ${load.toFixed(1)} at the start, on ${readFileSync('/proc/cpuinfo', 'utf8').match(/^processor/gm)?.length ?? '?'} cores.`,
    ];
    return { title: `Many threads in one window (weft serve + Chromium, ${THREADS} threads)`, rows, notes };
  } finally {
    await session.close();
    await stop(served.child);
    await workspace.cleanup();
    await home.cleanup();
  }
}
