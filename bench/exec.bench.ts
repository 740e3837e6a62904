// `weft exec` as a whole process against the mock Responses server: a plain answer, and one tool call
// followed by an answer. Codex's `codex exec` on the same kind of mock: 0.34 s / 150 MiB (plain) and
// 0.46 s / 154 MiB (one tool call).
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { startMockResponsesServer } from '../test/support/mock-responses-server';
import { evAssistantMessage, evCompleted, evCreated, evFunctionCall, evOutputTextDelta } from '../test/support/sse';
import { measureProcess, median } from './measure';

const RUNS = 15;
const WEFT = resolve(process.cwd(), 'bin/weft.js');

export default async function run() {
  const server = await startMockResponsesServer();
  const home = await mkdtemp(join(tmpdir(), 'weft-bench-home-'));
  const work = await mkdtemp(join(tmpdir(), 'weft-bench-ws-'));
  // Commands run in a login shell: an empty HOME keeps the machine's own profile scripts out of the figure.
  const userHome = await mkdtemp(join(tmpdir(), 'weft-bench-user-'));
  await writeFile(
    join(home, 'config.toml'),
    `model = "mock-model"\nmodel_provider = "mock"\n[model_providers.mock]\nname = "Mock"\nbase_url = "${server.url}"\nenv_key = "MOCK_API_KEY"\nwire_api = "responses"\n`,
  );
  const env = {
    PATH: process.env['PATH'],
    HOME: userHome,
    SHELL: '/bin/bash',
    WEFT_HOME: home,
    MOCK_API_KEY: 'x',
  };
  const answer = {
    kind: 'sse' as const,
    events: [evCreated(), evOutputTextDelta('Hello'), evAssistantMessage('Hello'), evCompleted()],
  };

  const measure = async (script: () => void) => {
    const walls: number[] = [];
    const peaks: number[] = [];
    for (let i = 0; i < RUNS + 1; i++) {
      script();
      const r = await measureProcess([process.execPath, WEFT, 'exec', 'say hello'], { cwd: work, env });
      if (r.exitCode !== 0) throw new Error(`weft exec failed: ${r.stderr}`);
      if (i === 0) continue; // warm the page cache
      walls.push(r.wallMs);
      peaks.push(r.peakRssMiB);
    }
    return { wall: median(walls), peak: median(peaks), max: Math.max(...peaks) };
  };
  const plain = await measure(() => server.enqueue(answer));
  const tool = await measure(() =>
    server.enqueueMany([
      { kind: 'sse', events: [evCreated(), evFunctionCall('c1', 'exec_command', { cmd: 'echo hi' }), evCompleted()] },
      answer,
    ]),
  );
  await server.close();
  await rm(home, { recursive: true, force: true });
  await rm(work, { recursive: true, force: true });
  await rm(userHome, { recursive: true, force: true });
  return {
    title: 'weft exec (whole process, mock model)',
    rows: [
      {
        name: 'plain answer: wall time (median of 15)',
        value: plain.wall / 1000,
        unit: 's',
        target: '< 0.34 s (codex exec)',
      },
      {
        name: 'plain answer: peak RSS (median)',
        value: plain.peak,
        unit: 'MiB',
        target: '< 150 MiB (codex exec)',
        note: `max ${plain.max.toFixed(1)} MiB`,
      },
      {
        name: 'one tool call + answer: wall time (median of 15)',
        value: tool.wall / 1000,
        unit: 's',
        target: '< 0.46 s (codex exec)',
      },
      {
        name: 'one tool call + answer: peak RSS (median)',
        value: tool.peak,
        unit: 'MiB',
        target: '< 154 MiB (codex exec)',
        note: `max ${tool.max.toFixed(1)} MiB`,
      },
    ],
    notes: ['Peak RSS is getrusage(RUSAGE_CHILDREN).ru_maxrss of the weft process.'],
  };
}
