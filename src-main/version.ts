/** Weft's version, reported in `initialize` and written into every rollout's `session_meta`. */
export const VERSION = '0.1.0';
