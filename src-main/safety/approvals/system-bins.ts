/** Folders whose programs are trusted to be the system's own (not something the workspace put there). */
export const SYSTEM_BIN_DIRS: readonly string[] = ['/bin', '/usr/bin', '/usr/local/bin', '/sbin', '/usr/sbin'];
