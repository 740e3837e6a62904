// The agents' commands run below the host that serves the person (Linux). Each command leads a session of
// its own (a detached spawn; inside the sandbox, bwrap's --new-session), and where the kernel groups tasks
// by session for scheduling (autogroup: on by default, for processes not placed in a cgroup with the cpu
// controller, as systemd desktops place apps) it shares the cores between those groups as equals: eight
// agents' commands took eight shares to the host's one, whatever their own nice (the many-agents bench).
// So an agent's command starts through a small prelude, inside the sandbox when there is one, that sets its
// session's group BACKGROUND_NICE steps below the host's (/proc/self/autogroup) and runs the command through
// `nice` as many steps below the host (what counts where tasks are not grouped by session, as between the
// host and its commands in one systemd scope). Everything the command starts inherits both; a contended core
// goes to the host first, an idle one to the command at full speed.
//
// The kernel takes one change of a group's nice per 100 ms from the whole system (EAGAIN otherwise, unless
// the writer has CAP_SYS_ADMIN), so the prelude leaves the write to a process of its own that tries again
// every 100 ms for up to 3 s: the command starts at once, and one that lasts is lowered within a moment.
// That process leaves the command's children (a subshell starts it and is reaped before the command
// starts), holds none of its output, and is in its process group (a kill of the command ends it too). A
// system without either means (no autogroup, or a /proc where a group's nice cannot be set; no `nice`) leaves
// that part out; elsewhere than Linux nothing is done.
import { readFileSync, writeFileSync } from 'node:fs';
import { BACKGROUND_NICE } from '../../util/pool-priority';
import { firstExecutable } from './bwrap-launch';

const SHELL = '/bin/sh';
const NICE = ['/usr/bin/nice', '/bin/nice'];
const SLEEP = ['/usr/bin/sleep', '/bin/sleep'];
const AUTOGROUP = '/proc/self/autogroup';
/** Tries of the group's nice after the first, 100 ms apart (the kernel's pace for such changes). */
const AUTOGROUP_TRIES = 30;

/** The prelude's argv before the command's, or null where it would do nothing; looked up once. */
let prelude: readonly string[] | null | undefined;

/**
 * The argv that runs `argv` below the host: the prelude, then `argv` (its `"$@"`); `argv` itself where no
 * prelude applies. Run it where the command's session begins (inside bwrap, after its setsid).
 */
export function inBackground(argv: readonly string[]): string[] {
  prelude ??= findPrelude();
  return prelude === null ? [...argv] : [...prelude, ...argv];
}

function findPrelude(): readonly string[] | null {
  if (process.platform !== 'linux' || firstExecutable([SHELL]) === null) return null;
  const group = autogroupNice();
  const nice = firstExecutable(NICE);
  if (group === null && nice === null) return null;
  const steps: string[] = [];
  if (group !== null) {
    // A new session's group starts at nice 0: this only lowers it. Braces: a refused write says nothing.
    const write = `{ echo ${Math.min(19, group + BACKGROUND_NICE)} > ${AUTOGROUP}; } 2>/dev/null`;
    const sleep = firstExecutable(SLEEP);
    const tries =
      sleep === null
        ? write
        : `n=0; until ${write}; do [ $n -ge ${AUTOGROUP_TRIES} ] && exit; n=$((n + 1)); ${sleep} 0.1; done`;
    steps.push(`( (${tries}) </dev/null >/dev/null 2>&1 & )`);
  }
  // `nice -n` is relative: the command starts at the host's own nice, and runs that many steps below it.
  steps.push(nice === null ? 'exec "$@"' : `exec ${nice} -n ${BACKGROUND_NICE} "$@"`);
  return [SHELL, '-c', steps.join('; '), 'weft-background'];
}

/**
 * The host's own session group's nice, or null where the kernel does not group tasks by session or a group's
 * nice cannot be set here (a container's read-only /proc: the command's tries would all fail). Found by
 * writing the host's own value back, which changes nothing; EAGAIN is the kernel's pace, not a refusal.
 */
function autogroupNice(): number | null {
  try {
    // eslint-disable-next-line weft/no-sync-fs -- one read of a small proc file, once per process (memoized)
    const match = /\bnice\s+(-?\d+)/.exec(readFileSync(AUTOGROUP, 'utf8'));
    if (match === null) return null;
    const nice = Number(match[1]);
    try {
      // eslint-disable-next-line weft/no-sync-fs -- one write of a small proc file, once per process (memoized)
      writeFileSync(AUTOGROUP, String(nice));
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EAGAIN') return null;
    }
    return nice;
  } catch {
    return null;
  }
}
