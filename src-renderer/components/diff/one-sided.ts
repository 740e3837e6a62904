// A diff with one empty side (a new file, a deleted file, a file emptied or filled) is shown as the other
// side alone, every line marked added or removed: Monaco's diff algorithms pair the empty side's single
// empty line with something and draw a phantom removed or added line. Pure.

export type OneSidedKind = 'added' | 'removed';

export interface OneSided {
  kind: OneSidedKind;
  /** The non-empty side's text, without its final line break (which would be drawn as one more line). */
  text: string;
}

/** The one side to show for `original` → `modified`, or null for a diff with text on both sides. */
export function oneSided(original: string, modified: string): OneSided | null {
  if ((original === '') === (modified === '')) return null;
  const kind: OneSidedKind = original === '' ? 'added' : 'removed';
  const text = kind === 'added' ? modified : original;
  return { kind, text: text.replace(/\r?\n$/, '') };
}
