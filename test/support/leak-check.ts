// A leak check after each test file (vitest setupFiles), as VS Code checks disposables per suite: the
// file fails when it leaves behind more open handles (servers, sockets, pipes, watchers), ref'd timers or
// child processes than there were before it was imported. Everything vitest itself holds (its IPC channel
// to the runner, stdio, the running hook's timer) is there before and after, so it cancels out.
//
// Runs for test/unit and test/integration. The browser-driven e2e files are not checked here: each test
// starts its own `weft serve` and browser context (`startE2e`) and stops them itself (`E2e.close`), in the
// one Chromium its worker process shares (test/support/e2e-setup.ts fails a file that leaves a context open).
//
// Unit files share worker processes (vitest.config.ts, `isolate: false`): this file still runs before
// each of them, so each is checked against what was open when it started.
import { readdirSync, readFileSync } from 'node:fs';
import { afterAll, expect } from 'vitest';
import { stopSpawnHost } from '../../src-main/util/spawn-host/connection';

/** Resource kinds that are always in flight for a moment and say nothing about a leak. */
const TRANSIENT: ReadonlySet<string> = new Set([
  'Immediate',
  'FSReqCallback',
  'FSReqPromise',
  'FileHandleCloseReq',
  'GetAddrInfoReqWrap',
  'ShutdownWrap',
  'WriteWrap',
]);

/** Children that are not a test's to end: esbuild's build service, started once per worker and unref'd. */
const SHARED_CHILDREN = [/[\\/]esbuild(\.exe)? --service=/];

/** How long a file's leftovers may take to close after its last hook (sockets ending, children reaped). */
const SETTLE_MS = 3_000;

interface Snapshot {
  resources: Map<string, number>;
  children: Set<number>;
}

function countResources(): Map<string, number> {
  const counts = new Map<string, number>();
  for (const kind of process.getActiveResourcesInfo()) {
    if (TRANSIENT.has(kind)) continue;
    counts.set(kind, (counts.get(kind) ?? 0) + 1);
  }
  return counts;
}

/** Live (not zombie) processes whose parent is this one (Linux /proc; elsewhere none are seen). */
function childPids(): Set<number> {
  const pids = new Set<number>();
  let entries: string[];
  try {
    entries = readdirSync('/proc');
  } catch {
    return pids;
  }
  for (const entry of entries) {
    if (!/^\d+$/.test(entry)) continue;
    let stat: string;
    try {
      stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
    } catch {
      continue; // exited while we looked
    }
    // pid (comm) state ppid …; comm may hold spaces and parentheses, so read after the last ')'.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    if (fields[0] !== 'Z' && Number(fields[1]) === process.pid) pids.add(Number(entry));
  }
  return pids;
}

function snapshot(): Snapshot {
  return { resources: countResources(), children: childPids() };
}

function commandOf(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').filter(Boolean).join(' ').slice(0, 200);
  } catch {
    return '?';
  }
}

function leaks(before: Snapshot, after: Snapshot): string[] {
  const found: string[] = [];
  for (const [kind, count] of after.resources) {
    const extra = count - (before.resources.get(kind) ?? 0);
    if (extra > 0) found.push(`${extra} × ${kind}`);
  }
  for (const pid of after.children) {
    if (before.children.has(pid)) continue;
    const command = commandOf(pid);
    if (!SHARED_CHILDREN.some((shared) => shared.test(command))) found.push(`child process ${pid} (${command})`);
  }
  return found;
}

const checked = (() => {
  const path = expect.getState().testPath ?? '';
  return /[\\/]test[\\/](unit|integration)[\\/]/.test(path);
})();

if (checked) {
  const before = snapshot();
  afterAll(async () => {
    // The spawn host lives as long as the process that started it, as in the app: stopped here as at exit.
    await stopSpawnHost();
    const deadline = Date.now() + SETTLE_MS;
    let found = leaks(before, snapshot());
    while (found.length > 0 && Date.now() < deadline) {
      await new Promise<void>((resolve) => setImmediate(resolve));
      found = leaks(before, snapshot());
    }
    if (found.length > 0) {
      throw new Error(
        `this test file left behind: ${found.join(', ')} (close servers, clear ref'd timers and end child processes in afterAll/afterEach)`,
      );
    }
  });
}
