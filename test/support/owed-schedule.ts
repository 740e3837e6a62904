// A schedule that owes one run now and no other for hours: daily, at the minute an hour ago (UTC), counted
// from two hours ago. An every-minute schedule owes a new run at each minute boundary, so a run that ends
// in the next minute would leave another owed to the `due` or host that looks after it.

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
