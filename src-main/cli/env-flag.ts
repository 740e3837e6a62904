// `--env NAME` in a face's arguments: the remote environment it runs against (`[environments.NAME]`).

/** Splits `--env NAME` (or `--env=NAME`) off `weft exec`'s arguments; null when absent. */
export function takeEnvFlag(argv: readonly string[]): { name: string; rest: string[] } | null {
  for (let i = 0; i < argv.length; i++) {
    const word = argv[i] ?? '';
    if (word === '--') return null;
    if (word === '--env') {
      const name = argv[i + 1];
      if (name === undefined) return { name: '', rest: [] };
      return { name, rest: [...argv.slice(0, i), ...argv.slice(i + 2)] };
    }
    if (word.startsWith('--env=')) return { name: word.slice(6), rest: [...argv.slice(0, i), ...argv.slice(i + 1)] };
  }
  return null;
}
