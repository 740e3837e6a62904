// How long a call waits and how much output it returns, from what the model asked for.
import {
  DEFAULT_EXEC_YIELD_MS,
  DEFAULT_MAX_OUTPUT_TOKENS,
  DEFAULT_WRITE_STDIN_YIELD_MS,
  MAX_EMPTY_POLL_YIELD_MS,
  MAX_YIELD_MS,
  MIN_EMPTY_POLL_YIELD_MS,
  MIN_YIELD_MS,
} from './constants';

/** exec_command: default 10,000 ms, clamped to 250–30,000 ms. */
export function execYieldMs(requested: number | undefined): number {
  return clamp(finiteOr(requested, DEFAULT_EXEC_YIELD_MS), MIN_YIELD_MS, MAX_YIELD_MS);
}

/**
 * write_stdin: default 250 ms, clamped to 250–30,000 ms; a poll (no chars) waits 5,000–300,000 ms, so a
 * model polling a long build does not spin on it.
 */
export function writeStdinYieldMs(chars: string, requested: number | undefined): number {
  const value = finiteOr(requested, DEFAULT_WRITE_STDIN_YIELD_MS);
  return chars === ''
    ? clamp(value, MIN_EMPTY_POLL_YIELD_MS, MAX_EMPTY_POLL_YIELD_MS)
    : clamp(value, MIN_YIELD_MS, MAX_YIELD_MS);
}

/** Output budget in tokens: default 10,000; negative or non-numbers fall back to the default. */
export function outputTokenBudget(requested: number | undefined): number {
  return requested !== undefined && Number.isFinite(requested) && requested >= 0
    ? Math.floor(requested)
    : DEFAULT_MAX_OUTPUT_TOKENS;
}

function finiteOr(value: number | undefined, fallback: number): number {
  return value !== undefined && Number.isFinite(value) ? value : fallback;
}

function clamp(value: number, min: number, max: number): number {
  return Math.min(max, Math.max(min, value));
}
