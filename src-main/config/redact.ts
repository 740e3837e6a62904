/**
 * A copy of the config safe to show (`config/read`): secrets replaced with "<redacted>".
 * Redacted: every `experimental_bearer_token`, and entries of `http_headers`, `env` (MCP servers)
 * and `set` (shell_environment_policy) whose name looks like a credential (auth, key, token,
 * secret, password, cookie). `env_http_headers` holds variable names, not secrets, and is kept.
 */
import { isTable } from './document';
import type { TomlDocument } from './document';
import type { WeftConfig } from './schema';

export const REDACTED = '<redacted>';

const SECRET_NAME = /auth|key|token|secret|passw|cookie|credential/i;
const SECRET_MAPS = new Set(['http_headers', 'env', 'set']);

export function redactConfig(config: WeftConfig): unknown {
  return redactValue(config, null);
}

/** The same for a raw layer document (a project file shown for review). */
export function redactDocument(doc: TomlDocument): unknown {
  return redactValue(doc, null);
}

function redactValue(value: unknown, key: string | null): unknown {
  if (Array.isArray(value)) return value.map((item) => redactValue(item, null));
  if (!isTable(value)) return value;
  const out: Record<string, unknown> = {};
  for (const [name, child] of Object.entries(value)) {
    if (name === 'experimental_bearer_token' && child !== undefined) out[name] = REDACTED;
    else if (key !== null && SECRET_MAPS.has(key) && typeof child === 'string' && SECRET_NAME.test(name))
      out[name] = REDACTED;
    else out[name] = redactValue(child, name);
  }
  return out;
}
