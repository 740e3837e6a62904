// Schedules for tests that must not cross one of their times while they run. One that owes one run now and
// no other for hours: daily, at the minute an hour ago (UTC), counted from two hours ago (an every-minute
// schedule owes a new run at each minute boundary, so a run that ends in the next minute would leave
// another owed to the `due` or host that looks after it). One that owes nothing for hours.

export interface OwedSchedule {
  /** Five cron fields, in UTC. */
  cron: string;
  /** ISO 8601: when the schedule starts counting (before the owed time). */
  createdAt: string;
  /** The owed time (ms since the epoch). */
  slot: number;
}

export function owedDailySchedule(now = Date.now()): OwedSchedule {
  const slot = Math.floor((now - 3_600_000) / 60_000) * 60_000;
  const at = new Date(slot);
  return {
    cron: `${at.getUTCMinutes()} ${at.getUTCHours()} * * *`,
    createdAt: new Date(now - 2 * 3_600_000).toISOString(),
    slot,
  };
}

/**
 * A weekday schedule (UTC) whose next time is at least 23 hours away: at the minute an hour ago. A test
 * that leaves a schedule enabled while it runs must not cross one of its times (a run it did not script).
 */
export function distantWeekdayCron(now = Date.now()): string {
  const at = new Date(now - 3_600_000);
  return `${at.getUTCMinutes()} ${at.getUTCHours()} * * 1-5`;
}
