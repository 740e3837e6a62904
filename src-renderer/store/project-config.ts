// Which project config files the prompt asks about: those of a project the person has not said no to
// that are new, changed, or not yet confirmed, minus those they put off ("Not now") with the same contents.
import type { WeftProjectConfigFile, WeftProjectConfigListResult } from '../../src-preload/protocol';

/** A file's contents as listed: putting it off covers these contents only. */
export function contentKey(file: Pick<WeftProjectConfigFile, 'path' | 'sha256'>): string {
  return `${file.path}\0${file.sha256}`;
}

/** The files waiting for a yes, root first; none in a project marked untrusted. */
export function waitingFiles(
  listed: WeftProjectConfigListResult | null,
  putOff: ReadonlySet<string>,
): WeftProjectConfigFile[] {
  if (listed === null || listed.trustLevel === 'untrusted') return [];
  return listed.files.filter(
    (file) =>
      (file.status === 'new' || file.status === 'changed' || file.status === 'unverified') &&
      !putOff.has(contentKey(file)),
  );
}

/** The badge of a waiting file. */
export function statusLabel(
  file: WeftProjectConfigFile,
  trustLevel: WeftProjectConfigListResult['trustLevel'],
): string {
  switch (file.status) {
    case 'changed':
      return 'Changed since you trusted it';
    case 'unverified':
      return 'Trusted before Weft checked contents';
    case 'new':
      return trustLevel === 'trusted' ? 'New since you trusted the project' : 'Not trusted yet';
    case 'applied':
      return 'Applied';
    case 'ignored':
      return 'Ignored';
  }
}
