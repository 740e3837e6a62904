// Cron schedules, read by croner (five fields, or six with seconds first; `@daily` and the like), in an
// IANA time zone. One place decides whether a schedule is valid and when it fires next.
import { Cron } from 'croner';

/** Why `cron` in `timezone` cannot be used, or null when it can. Names the part that is wrong. */
export function cronProblem(cron: string, timezone: string | undefined): string | null {
  if (timezone !== undefined && !isTimeZone(timezone))
    return `timezone "${timezone}" is not an IANA time zone (for example "Europe/Paris", "America/New_York" or "UTC")`;
  try {
    const schedule = new Cron(cron, { paused: true, ...(timezone === undefined ? {} : { timezone }) });
    schedule.stop();
    return null;
  } catch (error) {
    const reason = error instanceof Error ? error.message.replace(/^CronPattern: /, '') : String(error);
    return `cron "${cron}" is not a schedule: ${reason} (five fields: minute hour day-of-month month day-of-week, e.g. "0 9 * * 1-5")`;
  }
}

function isTimeZone(name: string): boolean {
  try {
    new Intl.DateTimeFormat('en', { timeZone: name });
    return true;
  } catch {
    return false;
  }
}

/** The first time strictly after `after` (ms since the epoch) at which the schedule fires; null if never. */
export function nextFire(cron: string, timezone: string | undefined, after: number): number | null {
  const schedule = new Cron(cron, { paused: true, ...(timezone === undefined ? {} : { timezone }) });
  try {
    return schedule.nextRun(new Date(after))?.getTime() ?? null;
  } finally {
    schedule.stop();
  }
}

/**
 * The latest time in (`since`, `now`] at which the schedule fired, or null when it did not fire in that
 * window. A machine that slept through several firings gets the last one only: missed runs run once.
 */
export function latestFireIn(cron: string, timezone: string | undefined, since: number, now: number): number | null {
  const schedule = new Cron(cron, { paused: true, ...(timezone === undefined ? {} : { timezone }) });
  try {
    // croner counts a firing earlier in the reference's own second as before it: 1 ms on includes `now`.
    const [latest] = schedule.previousRuns(1, new Date(now + 1));
    const at = latest?.getTime();
    return at !== undefined && at > since && at <= now ? at : null;
  } finally {
    schedule.stop();
  }
}
