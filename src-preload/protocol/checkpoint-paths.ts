// How checkpoint results name files (`weftFiles`, the preview, `weftKeepFiles`): workspace-relative,
// `/`-separated. A POSIX file name is bytes; one that is valid UTF-8 is written as its text, one that is
// not as a NUL character followed by the hex of its bytes (a name never holds NUL, so the two cannot be
// confused). Such a path is sent back exactly as received; `displayPath` shows it to people.

const strict = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });
const encoder = new TextEncoder();

/** The path component naming `bytes`. */
export function pathComponentOf(bytes: Uint8Array): string {
  try {
    return strict.decode(bytes);
  } catch {
    return `\0${Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('')}`;
  }
}

/** The bytes a path component names; null when it is not a valid component. */
export function pathComponentBytes(component: string): Uint8Array | null {
  if (!component.startsWith('\0')) {
    if (component === '' || component.includes('\0') || component.includes('/')) return null;
    return encoder.encode(component);
  }
  const hex = component.slice(1);
  if (hex === '' || hex.length % 2 !== 0 || !/^[0-9a-f]+$/.test(hex)) return null;
  const bytes = new Uint8Array(hex.length / 2);
  for (let i = 0; i < bytes.length; i++) bytes[i] = parseInt(hex.slice(i * 2, i * 2 + 2), 16);
  return bytes;
}

/** A path for people: bytes that are not UTF-8 are shown as `\xNN`. */
export function displayPath(path: string): string {
  if (!path.includes('\0')) return path;
  return path
    .split('/')
    .map((component) => {
      const bytes = component.startsWith('\0') ? pathComponentBytes(component) : null;
      return bytes === null ? component : showBytes(bytes);
    })
    .join('/');
}

function sequenceLength(lead: number): number {
  if (lead < 0x80) return 1;
  if (lead >= 0xc2 && lead <= 0xdf) return 2;
  if (lead >= 0xe0 && lead <= 0xef) return 3;
  if (lead >= 0xf0 && lead <= 0xf4) return 4;
  return 0;
}

function showBytes(bytes: Uint8Array): string {
  let out = '';
  let i = 0;
  while (i < bytes.length) {
    const lead = bytes[i] ?? 0;
    const length = sequenceLength(lead);
    if (length > 0 && i + length <= bytes.length) {
      try {
        out += strict.decode(bytes.subarray(i, i + length));
        i += length;
        continue;
      } catch {
        /* shown byte by byte */
      }
    }
    out += `\\x${lead.toString(16).padStart(2, '0')}`;
    i += 1;
  }
  return out;
}
