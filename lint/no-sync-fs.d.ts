// Types of lint/no-sync-fs.js for the tests that import it.
import type { Rule } from 'eslint';

/** Repository-relative files (or folders ending in `/`) where synchronous fs calls are allowed, with why. */
export declare const allowedSyncFs: Record<string, string>;
export declare const noSyncFs: Rule.RuleModule;
