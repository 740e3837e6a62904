/** Where a config problem is: a file position when known, else the file alone, else nothing. */
export interface ConfigErrorLocation {
  /** The config file, or null when the problem is in a `-c` flag or has no single file. */
  file?: string | null;
  /** 1-based; null when the position could not be found in the file. */
  line?: number | null;
  /** 1-based; null when the position could not be found in the file. */
  column?: number | null;
  /** A few source lines around the position with a caret, for display under the message. */
  excerpt?: string | null;
}

/**
 * A config problem a person has to fix. The message is complete on its own
 * (`<file>:<line>:<col>: <what is wrong>`); the fields repeat the location for UIs.
 * Several problems found at once are joined with newlines, the location fields naming the first.
 */
export class ConfigError extends Error {
  override readonly name = 'ConfigError';
  readonly file: string | null;
  readonly line: number | null;
  readonly column: number | null;
  readonly excerpt: string | null;

  constructor(message: string, location: ConfigErrorLocation = {}) {
    super(message);
    this.file = location.file ?? null;
    this.line = location.line ?? null;
    this.column = location.column ?? null;
    this.excerpt = location.excerpt ?? null;
  }
}
