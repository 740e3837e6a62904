import { readlinkSync } from 'node:fs';

export interface EnvironmentContext {
  cwd: string;
  shell: string;
  /** YYYY-MM-DD in the local time zone. */
  currentDate: string;
  timezone: string;
  /** Omitted when unknown. */
  networkEnabled?: boolean;
}

export function currentEnvironment(
  cwd: string,
  env: NodeJS.ProcessEnv = process.env,
  now: Date = new Date(),
): EnvironmentContext {
  const shellPath = env['SHELL'] ?? '/bin/bash';
  const shell = shellPath.split('/').pop() || 'bash';
  const pad = (n: number): string => String(n).padStart(2, '0');
  const currentDate = `${now.getFullYear()}-${pad(now.getMonth() + 1)}-${pad(now.getDate())}`;
  const timezone = localTimeZone(env);
  return { cwd, shell, currentDate, timezone };
}

/** `<environment_context>` as Codex renders it: one indented child element per line. */
export function renderEnvironmentContext(ctx: EnvironmentContext): string {
  const lines = [
    '<environment_context>',
    `  <cwd>${ctx.cwd}</cwd>`,
    `  <shell>${ctx.shell}</shell>`,
    `  <current_date>${ctx.currentDate}</current_date>`,
    `  <timezone>${ctx.timezone}</timezone>`,
  ];
  if (ctx.networkEnabled !== undefined) lines.push(`  <network enabled="${ctx.networkEnabled}" />`);
  lines.push('</environment_context>');
  return lines.join('\n');
}

/**
 * The IANA zone name. `Intl` answers too, but loading ICU's zone data costs ~70 ms at start-up, so
 * `TZ` and the /etc/localtime link (Linux and macOS) are tried first.
 */
function localTimeZone(env: NodeJS.ProcessEnv): string {
  const tz = env['TZ'];
  if (tz && /^[A-Za-z_]+(\/[A-Za-z0-9_+-]+)*$/.test(tz)) return tz;
  systemZone ??= systemTimeZone();
  return systemZone;
}

/** The machine's zone, looked up once per process. */
let systemZone: string | undefined;

function systemTimeZone(): string {
  try {
    // eslint-disable-next-line weft/no-sync-fs -- one readlink, once per process (memoized above)
    const target = readlinkSync('/etc/localtime');
    const m = /zoneinfo\/(.+)$/.exec(target);
    if (m?.[1]) return m[1];
  } catch {
    // not a link: fall through
  }
  return Intl.DateTimeFormat().resolvedOptions().timeZone || 'UTC';
}
