/** Whether two JSON values are the same value (the same object, or equal once serialized). */
export function sameJson(a: unknown, b: unknown): boolean {
  return a === b || JSON.stringify(a) === JSON.stringify(b);
}
