// Types of lint/layering.js and lint/layers.js for the tests that import them.
import type { ESLint, Rule } from 'eslint';

export interface LayerRow {
  may: string[];
  packages: 'any' | 'node' | 'browser' | string[];
}
export declare function unitOf(relPath: string): string | null;
export declare const layering: Rule.RuleModule;
declare const plugin: ESLint.Plugin;
export default plugin;
