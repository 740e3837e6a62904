// Correctness at benchmark scale (timing is measured by the benchmark, never asserted here).

import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { applyPatchText } from '../../../src-main/tools/apply-patch/index';
import { bigUpdateCase, manyAddsCase } from './cases';
import { read, tempDir, writeTree } from './helpers';

describe('apply_patch at benchmark scale', () => {
  it('applies a 2,000-hunk patch to a 200,000-line file correctly', async () => {
    const dir = tempDir();
    const { original, patchText, expected } = bigUpdateCase();
    writeTree(dir, { 'big.ts': original });
    const outcome = await applyPatchText(patchText, { cwd: dir });
    expect(outcome.output).toBe('Success. Updated the following files:\nM big.ts\n');
    expect(read(dir, 'big.ts') === expected).toBe(true);
    expect(outcome.ok && outcome.plan.files[0]?.hunks.length).toBe(2_000);
    // Written through a temporary file renamed into place (by the thread pool, for a file this big).
    expect(readdirSync(dir)).toEqual(['big.ts']);
  });

  it('gives the event loop back while applying a big patch, except for a one-shot command (blocking)', async () => {
    const { original, patchText, expected } = bigUpdateCase();
    /** Turns of the event loop (immediates run) while the patch was applied. */
    const turnsWhileApplying = async (blocking: boolean): Promise<number> => {
      const dir = tempDir();
      writeTree(dir, { 'big.ts': original });
      let turns = 0;
      let counting = true;
      const tick = (): void => {
        if (!counting) return;
        turns++;
        setImmediate(tick);
      };
      setImmediate(tick);
      const outcome = await applyPatchText(patchText, { cwd: dir, blocking });
      counting = false;
      expect(outcome.ok).toBe(true);
      expect(read(dir, 'big.ts') === expected).toBe(true);
      expect(readdirSync(dir)).toEqual(['big.ts']);
      return turns;
    };
    // In the host, the pacer's pauses and the thread pool's reads, writes and rename are turns of the loop
    // in which other threads' requests are answered.
    expect(await turnsWhileApplying(false)).toBeGreaterThan(0);
    // `weft apply-patch` serves nothing else: none, so V8 gets no turn to start a collection it would not
    // otherwise need before the process exits.
    expect(await turnsWhileApplying(true)).toBe(0);
  });

  it('applies a patch adding 500 files of 40 lines', async () => {
    const dir = tempDir();
    const outcome = await applyPatchText(manyAddsCase(), { cwd: dir });
    expect(outcome.ok).toBe(true);
    expect(outcome.output.split('\n').filter((l) => l.startsWith('A '))).toHaveLength(500);
    expect(readdirSync(join(dir, 'pkg3'))).toHaveLength(50);
    expect(read(dir, 'pkg3/file13.ts').split('\n')[39]).toBe(`export const v39 = ${13 * 40 + 39};`);
  });
});
