// How times, durations, sizes and paths read in the UI. Pure.

/** "now", "5m", "3h", "2d", then a date ("Mar 4", or "Mar 4, 2024" in another year). */
export function relativeTime(unixSeconds: number, nowMs: number): string {
  const seconds = Math.max(0, Math.round(nowMs / 1000 - unixSeconds));
  if (seconds < 60) return 'now';
  if (seconds < 3600) return `${Math.floor(seconds / 60)}m`;
  if (seconds < 86_400) return `${Math.floor(seconds / 3600)}h`;
  if (seconds < 7 * 86_400) return `${Math.floor(seconds / 86_400)}d`;
  const date = new Date(unixSeconds * 1000);
  const sameYear = date.getFullYear() === new Date(nowMs).getFullYear();
  return date.toLocaleDateString(
    undefined,
    sameYear ? { month: 'short', day: 'numeric' } : { month: 'short', day: 'numeric', year: 'numeric' },
  );
}

/** "850 ms", "4.2 s", "3 m 05 s", "1 h 02 m". */
export function duration(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)} ms`;
  const seconds = ms / 1000;
  if (seconds < 60) return `${seconds < 10 ? seconds.toFixed(1) : Math.round(seconds)} s`;
  const totalSeconds = Math.round(seconds);
  const minutes = Math.floor(totalSeconds / 60);
  if (minutes < 60) return `${minutes} m ${String(totalSeconds % 60).padStart(2, '0')} s`;
  return `${Math.floor(minutes / 60)} h ${String(minutes % 60).padStart(2, '0')} m`;
}

/** One formatter for every count: `Number.toLocaleString` makes a new one on each call (tens of µs). */
const counts = new Intl.NumberFormat();

/** "1,234,567" in the user's locale, as `toLocaleString()` writes it. */
export function countText(value: number): string {
  return counts.format(value);
}

/** "950", "12.3k", "1.2M". */
export function compactNumber(value: number): string {
  if (value < 1000) return String(value);
  if (value < 1_000_000) return `${(value / 1000).toFixed(value < 10_000 ? 1 : 0)}k`;
  return `${(value / 1_000_000).toFixed(1)}M`;
}

/** `path` relative to `root` when inside it ("src/app.ts"), else unchanged. */
export function relativePath(path: string, root: string | null): string {
  if (root === null || root === '') return path;
  const base = root.endsWith('/') ? root : `${root}/`;
  return path.startsWith(base) ? path.slice(base.length) : path === root ? '.' : path;
}

/** The last segment of a folder path. */
export function baseName(path: string): string {
  const trimmed = path.replace(/[\\/]+$/, '');
  return trimmed.split(/[\\/]/).pop() || trimmed || path;
}

/** "$0.0044", "$1.27", "unknown price", "$0.01 + unknown price" (micro-dollars in, models without a price). */
export function costText(cost: { usdMicros: number; unpricedModels: readonly string[] }): string {
  const dollars = cost.usdMicros / 1e6;
  const usd = `$${dollars.toFixed(dollars > 0 && dollars < 0.01 ? 4 : 2)}`;
  if (cost.unpricedModels.length === 0) return usd;
  return cost.usdMicros === 0 ? 'unknown price' : `${usd} + unknown price`;
}
