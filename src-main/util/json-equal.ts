// Whether two values would serialise to the same JSON, without serialising them: a thread item carrying a
// 1 MiB diff was turned into JSON twice per field just to learn that nothing differed.

/**
 * Like `JSON.stringify(left) === JSON.stringify(right)` for plain data (numbers, strings, booleans, null,
 * arrays and plain objects), key order aside, without building the strings.
 */
export function jsonEqual(left: unknown, right: unknown): boolean {
  // NaN and ±Infinity are written as null.
  const a = typeof left === 'number' && !Number.isFinite(left) ? null : left;
  const b = typeof right === 'number' && !Number.isFinite(right) ? null : right;
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a) && Array.isArray(b)) {
    if (a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) {
      // In an array, undefined (and functions) become null.
      const x: unknown = a[i] === undefined ? null : a[i];
      const y: unknown = b[i] === undefined ? null : b[i];
      if (!jsonEqual(x, y)) return false;
    }
    return true;
  }
  const x = a as Record<string, unknown>;
  const y = b as Record<string, unknown>;
  const xKeys = Object.keys(x).filter((key) => x[key] !== undefined);
  const yKeys = Object.keys(y).filter((key) => y[key] !== undefined);
  if (xKeys.length !== yKeys.length) return false;
  for (const key of xKeys) if (!(key in y) || !jsonEqual(x[key], y[key])) return false;
  return true;
}
