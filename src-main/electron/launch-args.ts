// What a launch asks for: `weft .`, `weft ~/src/a ~/src/b`, or nothing. The same parsing serves our own
// launch and a second launch forwarded by the single-instance lock. Pure.
import { isAbsolute, resolve } from 'node:path';
import { z } from 'zod';

export interface LaunchRequest {
  /** Folders to open, absolute (resolved against the launch's working directory), in order, no repeats. */
  folders: string[];
}

/**
 * Where the app's own arguments start in `process.argv`: after the executable, and in development
 * (`electron . <folder>`, `process.defaultApp` true) also after the app path.
 */
export function firstAppArgIndex(defaultApp: boolean): number {
  return defaultApp ? 2 : 1;
}

/**
 * Reads folder arguments from `argv` starting at `start`. Switches (`-x`, `--x`, `--x=y`) belong to
 * Chromium/Electron or macOS (`-psn_…`) and are skipped; after `--` everything is a folder.
 */
export function parseLaunchArgs(argv: readonly string[], start: number, cwd: string): LaunchRequest {
  const folders: string[] = [];
  let optionsEnded = false;
  for (const arg of argv.slice(start)) {
    if (!optionsEnded && arg === '--') {
      optionsEnded = true;
      continue;
    }
    if (!optionsEnded && arg.startsWith('-')) continue;
    if (arg === '') continue;
    const folder = isAbsolute(arg) ? resolve(arg) : resolve(cwd, arg);
    if (!folders.includes(folder)) folders.push(folder);
  }
  return { folders };
}

/**
 * What a second launch hands the running app through `requestSingleInstanceLock(additionalData)`.
 * Chromium may reorder or add switches in the forwarded command line; this object arrives as sent.
 */
export const ForwardedLaunch = z.object({ weftLaunch: z.literal(1), folders: z.array(z.string().min(1)) });
export type ForwardedLaunch = z.infer<typeof ForwardedLaunch>;

export function forwardedLaunch(request: LaunchRequest): ForwardedLaunch {
  return { weftLaunch: 1, folders: request.folders };
}

/**
 * The running app's view of a second launch: the additionalData when it parses (absolute paths only),
 * else the forwarded command line parsed against the second launch's working directory.
 */
export function readSecondLaunch(
  additionalData: unknown,
  commandLine: readonly string[],
  workingDirectory: string,
  start: number,
): LaunchRequest {
  const forwarded = ForwardedLaunch.safeParse(additionalData);
  if (forwarded.success && forwarded.data.folders.every((folder) => isAbsolute(folder))) {
    return { folders: forwarded.data.folders.map((folder) => resolve(folder)) };
  }
  return parseLaunchArgs(commandLine, start, workingDirectory);
}
