/**
 * Writing JSON values as TOML source: strings as basic strings with TOML escapes, numbers,
 * booleans, arrays, objects as inline tables. Everything fits on one line. TOML has no null, so a
 * null (or undefined) anywhere inside a value is refused.
 */
import { ConfigError } from './errors';
import { isTable, UNSAFE_KEY } from './document';

const BARE_KEY = /^[A-Za-z0-9_-]+$/;

/** A key segment as TOML writes it: bare when it can be, else a basic string. */
export function tomlKey(key: string): string {
  return BARE_KEY.test(key) ? key : tomlString(key);
}

/** A dotted key: `a."b c".d`. */
export function tomlDottedKey(path: readonly string[]): string {
  return path.map(tomlKey).join('.');
}

/** A basic string: `"…"`, escaping quotes, backslashes and control characters (DEL included). */
export function tomlString(text: string): string {
  let out = '"';
  for (const char of text) {
    const code = char.codePointAt(0) ?? 0;
    if (char === '"') out += '\\"';
    else if (char === '\\') out += '\\\\';
    else if (char === '\n') out += '\\n';
    else if (char === '\t') out += '\\t';
    else if (char === '\r') out += '\\r';
    else if (char === '\b') out += '\\b';
    else if (char === '\f') out += '\\f';
    else if (code < 0x20 || code === 0x7f) out += `\\u${code.toString(16).toUpperCase().padStart(4, '0')}`;
    else if (code >= 0xd800 && code <= 0xdfff)
      throw new ConfigError('a string with an unpaired UTF-16 surrogate cannot be written to TOML');
    else out += char;
  }
  return `${out}"`;
}

/** `value` as one line of TOML source. Throws ConfigError for values TOML cannot hold. */
export function tomlValue(value: unknown): string {
  if (typeof value === 'string') return tomlString(value);
  if (typeof value === 'boolean') return String(value);
  if (typeof value === 'bigint') return value.toString();
  if (typeof value === 'number') {
    if (Number.isNaN(value)) return 'nan';
    if (!Number.isFinite(value)) return value > 0 ? 'inf' : '-inf';
    if (Number.isInteger(value) && !Number.isSafeInteger(value)) return value.toExponential().replace('e+', 'e');
    return String(value);
  }
  if (value instanceof Date) return value.toISOString();
  if (Array.isArray(value)) return value.length === 0 ? '[]' : `[${value.map(tomlValue).join(', ')}]`;
  if (isTable(value)) {
    const pairs = Object.entries(value).map(([key, item]) => {
      if (key === UNSAFE_KEY) throw new ConfigError(`"${UNSAFE_KEY}" cannot be used as a key`);
      return `${tomlKey(key)} = ${tomlValue(item)}`;
    });
    return pairs.length === 0 ? '{}' : `{ ${pairs.join(', ')} }`;
  }
  throw new ConfigError(
    `TOML has no null: ${value === null ? 'null' : typeof value} cannot be written; leave the key out instead`,
  );
}
