/**
 * `-c key.path=value` flags, as in Codex: the value is read as a TOML value (`"high"`, `true`,
 * `["/a"]`, `{ network_access = true }`) and, when it is not valid TOML, taken as a plain string
 * (so `-c model=gpt-5` works).
 */
import { parse } from 'smol-toml';
import { ConfigError } from './errors';
import { UNSAFE_KEY } from './document';
import { parseKeyPath } from './toml-keys';

export interface ParsedOverride {
  /** The flag's argument as given. */
  flag: string;
  /** The key path, decoded: `projects."/a b".trust_level` → ["projects", "/a b", "trust_level"]. */
  path: string[];
  value: unknown;
}

const EXAMPLES = 'e.g. -c model=gpt-5.1-codex or -c sandbox_workspace_write.network_access=true';

export function parseOverride(flag: string): ParsedOverride {
  const eq = indexOfEquals(flag);
  if (eq < 0) {
    throw new ConfigError(`invalid -c override "${flag}": expected key=value, ${EXAMPLES}`);
  }
  const keyText = flag.slice(0, eq).trim();
  if (keyText === '') {
    throw new ConfigError(`invalid -c override "${flag}": the key before "=" is empty; ${EXAMPLES}`);
  }
  const path = parseKeyPath(keyText);
  if (path === null) {
    throw new ConfigError(
      `invalid -c override "${flag}": "${keyText}" is not a key path; write dotted keys such as sandbox_workspace_write.network_access`,
    );
  }
  if (path.includes(UNSAFE_KEY)) {
    throw new ConfigError(`invalid -c override "${flag}": "${UNSAFE_KEY}" cannot be used as a key`);
  }
  return { flag, path, value: parseTomlValue(flag.slice(eq + 1).trim()) };
}

export function parseOverrides(flags: readonly (string | ParsedOverride)[]): ParsedOverride[] {
  return flags.map((flag) => (typeof flag === 'string' ? parseOverride(flag) : flag));
}

/**
 * An override given as a value (a thread's `config` map, a setting a client or flag names): the key path is
 * read as in `-c`, the value is taken as it is. JSON null (which TOML has not) is the empty string.
 */
export function overrideValue(key: string, value: unknown): ParsedOverride {
  const path = parseKeyPath(key);
  if (path === null)
    throw new ConfigError(
      `invalid config override: "${key}" is not a key path; write dotted keys such as sandbox_workspace_write.network_access`,
    );
  if (path.includes(UNSAFE_KEY))
    throw new ConfigError(`invalid config override "${key}": "${UNSAFE_KEY}" cannot be used as a key`);
  return { flag: `${key}=${JSON.stringify(value)}`, path, value: withoutNulls(value) };
}

function withoutNulls(value: unknown): unknown {
  if (value === null) return '';
  if (Array.isArray(value)) return value.map(withoutNulls);
  if (typeof value === 'object' && value !== undefined) {
    return Object.fromEntries(
      Object.entries(value).flatMap(([k, v]) => (k === UNSAFE_KEY ? [] : [[k, withoutNulls(v)]])),
    );
  }
  return value;
}

/** The first `=` that is not inside a quoted key segment, or -1. */
function indexOfEquals(flag: string): number {
  let quote: string | null = null;
  for (let i = 0; i < flag.length; i++) {
    const c = flag[i];
    if (quote !== null) {
      if (c === '\\' && quote === '"') i++;
      else if (c === quote) quote = null;
    } else if (c === '"' || c === "'") {
      quote = c;
    } else if (c === '=') {
      return i;
    }
  }
  return -1;
}

/** `text` read as one TOML value (`"high"`, `true`, `[1, 2]`, `{ a = 1 }`), else the text itself. */
export function parseTomlValue(text: string): unknown {
  try {
    const doc = parse(`value = ${text}`, { unsafeKeyBehaviour: 'throw' });
    const keys = Object.keys(doc);
    if (keys.length === 1 && keys[0] === 'value') return doc['value'];
  } catch {
    // Not a TOML value: the text itself is the value.
  }
  return text;
}
