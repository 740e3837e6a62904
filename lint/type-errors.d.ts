// Types of lint/type-errors.js for the tests that import it.
import type { Rule } from 'eslint';

export declare const typeErrors: Rule.RuleModule;
