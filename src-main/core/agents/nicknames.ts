// Names sub-agents go by (`agentNickname`): short, easy to tell apart in a list, and not the names of
// tools or commands. A thread's sub-agents get different names; once all are taken, numbers follow.
const NAMES = [
  'Ada',
  'Babbage',
  'Curie',
  'Darwin',
  'Euclid',
  'Faraday',
  'Gauss',
  'Hopper',
  'Hypatia',
  'Johnson',
  'Kepler',
  'Lamarr',
  'Lovelace',
  'Maxwell',
  'Meitner',
  'Mendel',
  'Newton',
  'Noether',
  'Pascal',
  'Planck',
  'Ramanujan',
  'Shannon',
  'Somerville',
  'Tesla',
  'Turing',
  'Volta',
  'Wiles',
  'Yalow',
] as const;

/** A name none of `taken` has, chosen by `pick` (an index into the free names). */
export function nicknameFor(taken: ReadonlySet<string>, pick: (n: number) => number = randomIndex): string {
  const free = NAMES.filter((name) => !taken.has(name));
  if (free.length > 0) return free[pick(free.length)] ?? free[0] ?? 'Agent';
  for (let round = 2; ; round++) {
    const again = NAMES.map((name) => `${name} ${round}`).filter((name) => !taken.has(name));
    if (again.length > 0) return again[pick(again.length)] ?? again[0] ?? 'Agent';
  }
}

function randomIndex(n: number): number {
  return Math.floor(Math.random() * n);
}
