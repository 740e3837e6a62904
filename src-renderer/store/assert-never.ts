/** For exhaustive switches over protocol unions: a new variant becomes a compile error where this is called. */
export function assertNever(value: never): never {
  throw new Error(`Unhandled case: ${JSON.stringify(value)}`);
}
