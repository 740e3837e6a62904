import { describe, expect, it } from 'vitest';
import { execYieldMs, outputTokenBudget, writeStdinYieldMs } from '../../../src-main/tools/exec';

describe('yield and budget limits', () => {
  it('exec_command waits 10 s by default, clamped to 250 ms–30 s', () => {
    expect([
      execYieldMs(undefined),
      execYieldMs(1),
      execYieldMs(5_000),
      execYieldMs(60_000),
      execYieldMs(Number.NaN),
    ]).toEqual([10_000, 250, 5_000, 30_000, 10_000]);
  });

  it('write_stdin waits 250 ms by default; an empty poll waits at least 5 s', () => {
    expect([writeStdinYieldMs('x', undefined), writeStdinYieldMs('x', 100), writeStdinYieldMs('x', 99_999)]).toEqual([
      250, 250, 30_000,
    ]);
    expect([writeStdinYieldMs('', undefined), writeStdinYieldMs('', 20_000), writeStdinYieldMs('', 999_999)]).toEqual([
      5_000, 20_000, 300_000,
    ]);
  });

  it('the output budget defaults to 10,000 tokens', () => {
    expect([
      outputTokenBudget(undefined),
      outputTokenBudget(-1),
      outputTokenBudget(12.7),
      outputTokenBudget(0),
    ]).toEqual([10_000, 10_000, 12, 0]);
  });
});
