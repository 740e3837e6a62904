/** The version of this build. */
const BUILT = '0.1.0';

/**
 * For tests only: a process that says another version (`WEFT_TEST_VERSION_OVERRIDE`, like `0.1.1`), so
 * that two builds meeting on one WEFT_HOME (an install on an environment) can be run from one checkout.
 */
const OVERRIDE = process.env['WEFT_TEST_VERSION_OVERRIDE'];

/** Weft's version, reported in `initialize` and written into every rollout's `session_meta`. */
export const VERSION = OVERRIDE !== undefined && /^\d+\.\d+\.\d+$/.test(OVERRIDE) ? OVERRIDE : BUILT;
