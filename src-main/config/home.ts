import { homedir } from 'node:os';
import { isAbsolute, join, resolve } from 'node:path';

export const CONFIG_FILE_NAME = 'config.toml';

/** `WEFT_HOME` when set (a leading `~` is expanded), else `~/.weft`. */
export function resolveWeftHome(env: NodeJS.ProcessEnv): string {
  const home = env['HOME'] !== undefined && env['HOME'] !== '' ? env['HOME'] : homedir();
  const configured = env['WEFT_HOME']?.trim();
  if (configured === undefined || configured === '') return join(home, '.weft');
  if (configured === '~') return home;
  if (configured.startsWith('~/')) return join(home, configured.slice(2));
  return isAbsolute(configured) ? configured : resolve(configured);
}

/** The user config file under a WEFT_HOME. */
export function userConfigFile(weftHome: string): string {
  return join(weftHome, CONFIG_FILE_NAME);
}
