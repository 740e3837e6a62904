// What `weft exec` tells on stderr about the hooks it found, before the run (untrusted hooks are told by the
// session itself, as a `warning`, when its first turn starts).
import type { DiscoveredHooks } from './discover';

export function hookNotes(found: DiscoveredHooks, bypassTrust: boolean): string[] {
  const lines: string[] = [];
  if (bypassTrust)
    lines.push(
      'weft: warning: `--dangerously-bypass-hook-trust` is enabled. Enabled hooks may run without review for this invocation.',
    );
  for (const e of found.errors) lines.push(`weft: warning: hook config ${e.path}: ${e.message}`);
  for (const w of found.warnings) lines.push(`weft: warning: ${w}`);
  return lines;
}
