// Remembered approval rules: every `*.toml` file in `WEFT_HOME/rules/` (format: RULES_FILE_HEADER in
// rules-file.ts, TOML with one `[[rule]]` table per rule). Rules added by Weft go to `default.toml`.
// Files are written atomically (temp file + rename), so a crash never leaves half a file.
import { randomBytes } from 'node:crypto';
import { mkdir, readdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { errorMessage } from '../../util/errors';
import { SYSTEM_BIN_DIRS } from './system-bins';
import { appendRule, parseRulesFile, removeRule } from './rules-file';
import type { Rule, RuleDecision } from './rules-file';

export type { Rule, RuleDecision } from './rules-file';

/** What the approval policy needs from a rule store. */
export interface RuleMatcher {
  /** The strictest rule matching `argv` (forbidden > prompt > allow), or null. */
  match(argv: readonly string[]): Rule | null;
}

export interface NewRule {
  pattern: readonly string[];
  decision: RuleDecision;
  justification?: string;
}

export const DEFAULT_RULES_FILE = 'default.toml';

const STRICTNESS: Record<RuleDecision, number> = { allow: 0, prompt: 1, forbidden: 2 };

/** The rules folder under a Weft home. */
export function rulesDir(weftHome: string): string {
  return join(weftHome, 'rules');
}

export class RuleStore implements RuleMatcher {
  private rules: Rule[] = [];
  private loadWarnings: string[] = [];

  /** `dir` is the rules folder (`WEFT_HOME/rules`); it need not exist yet. */
  constructor(readonly dir: string) {}

  /** Problems found by the last `load()`, one line each, naming file and line. */
  get warnings(): readonly string[] {
    return this.loadWarnings;
  }

  /** (Re)reads every `*.toml` file of the folder; returns the warnings. A missing folder is no rules. */
  async load(): Promise<readonly string[]> {
    const rules: Rule[] = [];
    const warnings: string[] = [];
    let names: string[];
    try {
      names = (await readdir(this.dir)).filter((name) => name.endsWith('.toml')).sort();
    } catch (error) {
      if (!isNotFound(error)) warnings.push(`${this.dir}: cannot read the rules folder: ${errorMessage(error)}`);
      names = [];
    }
    for (const name of names) {
      const file = join(this.dir, name);
      let text: string;
      try {
        text = await readFile(file, 'utf8');
      } catch (error) {
        warnings.push(`${file}: cannot read this rules file: ${errorMessage(error)}`);
        continue;
      }
      const parsed = parseRulesFile(file, text);
      warnings.push(...parsed.warnings);
      for (const rule of parsed.rules) {
        const twin = rules.find((r) => r.id === rule.id);
        if (twin !== undefined) {
          warnings.push(
            `${file}:${rule.line}: id "${rule.id}" is already used at ${twin.sourceFile}:${twin.line}; revoking it removes the first`,
          );
        }
        rules.push(rule);
      }
    }
    this.rules = rules;
    this.loadWarnings = warnings;
    return warnings;
  }

  list(): Rule[] {
    return [...this.rules];
  }

  match(argv: readonly string[]): Rule | null {
    let best: Rule | null = null;
    for (const rule of this.rules) {
      if (!ruleMatches(rule, argv)) continue;
      if (best === null || STRICTNESS[rule.decision] > STRICTNESS[best.decision]) best = rule;
    }
    return best;
  }

  /** Adds a rule to `default.toml` and reloads. An identical rule already present is returned as is. */
  async add(input: NewRule): Promise<Rule> {
    const pattern = [...input.pattern];
    if (pattern.length === 0 || pattern.some((word) => word === '')) {
      throw new Error('A rule needs at least one word and no empty words, e.g. ["git", "status"].');
    }
    const existing = this.rules.find(
      (r) =>
        r.decision === input.decision &&
        r.pattern.length === pattern.length &&
        r.pattern.every((w, i) => w === pattern[i]),
    );
    if (existing !== undefined) return existing;
    const file = join(this.dir, DEFAULT_RULES_FILE);
    const id = `r-${randomBytes(4).toString('hex')}`;
    await mkdir(this.dir, { recursive: true });
    const current = await readIfExists(file);
    const rule = {
      id,
      pattern,
      decision: input.decision,
      ...(input.justification === undefined ? {} : { justification: input.justification }),
      createdAt: new Date().toISOString(),
    };
    await writeAtomic(file, appendRule(current, rule));
    await this.load();
    const added = this.rules.find((r) => r.id === id);
    if (added === undefined)
      throw new Error(`The rule was written to ${file} but could not be read back; check that file.`);
    return added;
  }

  /** Removes the rule with this id from its file and reloads; the removed rule, or null if none has it. */
  async revoke(id: string): Promise<Rule | null> {
    const rule = this.rules.find((r) => r.id === id);
    if (rule === undefined) return null;
    const text = await readIfExists(rule.sourceFile);
    const updated = text === null ? null : removeRule(rule.sourceFile, text, id);
    if (updated === null) {
      throw new Error(
        `Rule ${id} is no longer in ${rule.sourceFile} (the file changed); run \`weft rules list\` again.`,
      );
    }
    await writeAtomic(rule.sourceFile, updated);
    await this.load();
    return rule;
  }
}

/** Whether `rule.pattern` is a word-by-word prefix of `argv`. */
export function ruleMatches(rule: Pick<Rule, 'pattern' | 'decision'>, argv: readonly string[]): boolean {
  const [first, ...rest] = rule.pattern;
  if (first === undefined || argv.length < rule.pattern.length) return false;
  if (!programMatches(first, argv[0] ?? '', rule.decision)) return false;
  return rest.every((word, i) => argv[i + 1] === word);
}

/**
 * A pattern's program word matches the same word, or an absolute path with that basename. For allow
 * rules the path must be in a system folder, so `/tmp/x/git` is not allowed by a rule for `git`;
 * prompt and forbidden rules match any path (stricter is safe).
 */
function programMatches(word: string, program: string, decision: RuleDecision): boolean {
  if (word === program) return true;
  if (word.includes('/') || !program.startsWith('/') || basename(program) !== word) return false;
  return decision !== 'allow' || SYSTEM_BIN_DIRS.some((dir) => program === `${dir}/${word}`);
}

async function readIfExists(file: string): Promise<string | null> {
  try {
    return await readFile(file, 'utf8');
  } catch (error) {
    if (isNotFound(error)) return null;
    throw error;
  }
}

async function writeAtomic(file: string, text: string): Promise<void> {
  const temp = join(file, '..', `.${basename(file)}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`);
  try {
    await writeFile(temp, text, { encoding: 'utf8', mode: 0o600 });
    await rename(temp, file);
  } catch (error) {
    await rm(temp, { force: true });
    throw new Error(`Could not write ${file}: ${errorMessage(error)}`, { cause: error });
  }
}

function isNotFound(error: unknown): boolean {
  return typeof error === 'object' && error !== null && 'code' in error && error.code === 'ENOENT';
}
