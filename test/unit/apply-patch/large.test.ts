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

  it('applies a patch adding 500 files of 40 lines', async () => {
    const dir = tempDir();
    const outcome = await applyPatchText(manyAddsCase(), { cwd: dir });
    expect(outcome.ok).toBe(true);
    expect(outcome.output.split('\n').filter((l) => l.startsWith('A '))).toHaveLength(500);
    expect(readdirSync(join(dir, 'pkg3'))).toHaveLength(50);
    expect(read(dir, 'pkg3/file13.ts').split('\n')[39]).toBe(`export const v39 = ${13 * 40 + 39};`);
  });
});
