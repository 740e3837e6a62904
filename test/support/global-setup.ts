import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * Commands run as login shells (`bash -lc`), which read the user's profile. A developer's profile can take
 * seconds (version managers, shell hooks) and print things, which would make every command test depend on
 * the machine. Tests get an empty home of their own; the workers inherit it.
 */
export default function setup(): () => void {
  const home = mkdtempSync(join(tmpdir(), 'weft-test-home-'));
  process.env.HOME = home;
  return () => {
    rmSync(home, { recursive: true, force: true });
  };
}
