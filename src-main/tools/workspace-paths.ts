import { realpathSync } from 'node:fs';
import { dirname, isAbsolute, relative, resolve } from 'node:path';

/**
 * The real location of `absPath`, following symlinks as far as the path exists: a link inside the
 * workspace that points outside resolves to where it points.
 */
export function realLocation(absPath: string): string {
  let existing = absPath;
  const rest: string[] = [];
  for (;;) {
    try {
      const real = realpathSync(existing);
      return rest.length === 0 ? real : resolve(real, ...rest.reverse());
    } catch {
      const parent = dirname(existing);
      if (parent === existing) return absPath;
      rest.push(existing.slice(parent.length + (parent.endsWith('/') ? 0 : 1)));
      existing = parent;
    }
  }
}

export function isInside(child: string, root: string): boolean {
  const rel = relative(root, child);
  return rel === '' || (!rel.startsWith('..') && !isAbsolute(rel));
}

/** Why a patch may not write `absPath` given the writable roots, or null when it may. */
export function outsideWorkspaceReason(absPath: string, roots: string[]): string | null {
  const real = realLocation(absPath);
  if (roots.some((root) => isInside(real, realLocation(root)))) return null;
  return real === absPath ? `${absPath} is outside the workspace (${roots.join(', ')})` : `${absPath} resolves to ${real}, outside the workspace (${roots.join(', ')})`;
}
