// Reading and writing one rules file (`WEFT_HOME/rules/*.toml`). The format is documented in
// RULES_FILE_HEADER, which starts every file Weft creates.
//
// A file is read rule by rule: the text is cut at each `[[rule]]` header and every piece is parsed on its
// own, so one broken rule costs only that rule (with a warning naming the file and line), never the
// others in the file, and never a crash.
import { createHash } from 'node:crypto';
import { parse, stringify, TomlError } from 'smol-toml';
import { z } from 'zod';

export type RuleDecision = 'allow' | 'prompt' | 'forbidden';

export interface Rule {
  /** Stable name for `weft rules revoke`; derived from the pattern when the file gives none. */
  id: string;
  /** argv prefix matched word by word. */
  pattern: string[];
  decision: RuleDecision;
  justification?: string;
  /** RFC 3339 time the rule was added; null when a hand-written rule does not say. */
  createdAt: string | null;
  /** Absolute path of the file holding the rule. */
  sourceFile: string;
  /** 1-based line of the rule's `[[rule]]` header in that file. */
  line: number;
}

export const RULES_FILE_HEADER = `# Weft approval rules: commands you allowed, want to be asked about, or forbade.
# Edit freely; list and revoke with \`weft rules list\` / \`weft rules revoke <id>\`.
#
# One [[rule]] table per rule:
#   id            name used by \`weft rules revoke\` (optional in hand-written rules)
#   pattern       argv prefix, word by word: ["git", "push"] matches \`git push\` and \`git push origin main\`
#                 (not \`git pushx\`); a bare program name also matches that program's absolute path
#   decision      "allow" (run without asking), "prompt" (always ask) or "forbidden" (never run);
#                 default "allow"
#   justification optional: why the rule exists, shown when it applies
#   created_at    optional: when the rule was added (RFC 3339)
#
# When several rules match, the strictest wins: forbidden > prompt > allow. Nothing overrides forbidden.
`;

const RuleTable = z.object({
  id: z
    .string()
    .regex(/^[A-Za-z0-9._-]+$/, 'use letters, digits, ".", "_" or "-"')
    .optional(),
  pattern: z
    .array(z.string({ error: 'must be a list of words, e.g. ["git", "status"]' }).min(1, 'words must not be empty'), {
      error: 'must be a list of words, e.g. ["git", "status"]',
    })
    .min(1, 'must name at least one word'),
  decision: z
    .enum(['allow', 'prompt', 'forbidden'], { error: 'must be "allow", "prompt" or "forbidden"' })
    .default('allow'),
  justification: z.string().optional(),
  created_at: z.string().optional(),
});
const KNOWN_KEYS = new Set(['id', 'pattern', 'decision', 'justification', 'created_at']);

export interface ParsedRulesFile {
  rules: Rule[];
  warnings: string[];
}

interface Chunk {
  /** 0-based index of the first line (the `[[rule]]` header; 0 for the preamble). */
  start: number;
  /** 0-based index one past the last line. */
  end: number;
  isRule: boolean;
}

const RULE_HEADER = /^\s*\[\[\s*rule\s*\]\]\s*(#.*)?$/;

function chunks(lines: readonly string[]): Chunk[] {
  const out: Chunk[] = [{ start: 0, end: lines.length, isRule: false }];
  lines.forEach((line, index) => {
    if (!RULE_HEADER.test(line)) return;
    const previous = out[out.length - 1];
    if (previous !== undefined) previous.end = index;
    out.push({ start: index, end: lines.length, isRule: true });
  });
  return out;
}

/** The rules of one file's text; problems become warnings `file:line: …`. */
export function parseRulesFile(file: string, text: string): ParsedRulesFile {
  const lines = text.split('\n');
  const rules: Rule[] = [];
  const warnings: string[] = [];
  for (const chunk of chunks(lines)) {
    const body = lines.slice(chunk.isRule ? chunk.start + 1 : chunk.start, chunk.end).join('\n');
    const firstBodyLine = chunk.isRule ? chunk.start + 2 : 1;
    let table: unknown;
    try {
      table = parse(body);
    } catch (error) {
      const where = error instanceof TomlError ? firstBodyLine + error.line - 1 : chunk.start + 1;
      const detail = error instanceof Error ? error.message.split('\n')[0] : String(error);
      warnings.push(`${file}:${where}: ${detail}; this rule is ignored until the file is fixed`);
      continue;
    }
    if (!chunk.isRule) {
      if (isNonEmptyObject(table)) {
        warnings.push(`${file}:${chunk.start + 1}: settings outside a [[rule]] table are ignored`);
      }
      continue;
    }
    const parsed = RuleTable.safeParse(table);
    const headerLine = chunk.start + 1;
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      const field = issue === undefined ? '' : issue.path.join('.');
      warnings.push(
        `${file}:${headerLine}: rule ignored: ${field === '' ? '' : `\`${field}\` `}${issue?.message ?? 'invalid rule'}`,
      );
      continue;
    }
    const unknown = Object.keys(isNonEmptyObject(table) ? table : {}).filter((k) => !KNOWN_KEYS.has(k));
    if (unknown.length > 0) {
      warnings.push(`${file}:${headerLine}: unknown key(s) ${unknown.map((k) => `\`${k}\``).join(', ')} ignored`);
    }
    const value = parsed.data;
    rules.push({
      id: value.id ?? derivedId(value.pattern, value.decision),
      pattern: value.pattern,
      decision: value.decision,
      ...(value.justification === undefined ? {} : { justification: value.justification }),
      createdAt: value.created_at ?? null,
      sourceFile: file,
      line: headerLine,
    });
  }
  return { rules, warnings };
}

function isNonEmptyObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && Object.keys(value).length > 0;
}

/** A stable id for a rule written without one. */
export function derivedId(pattern: readonly string[], decision: RuleDecision): string {
  return `h-${createHash('sha256')
    .update(JSON.stringify([pattern, decision]))
    .digest('hex')
    .slice(0, 8)}`;
}

export interface NewRuleText {
  id: string;
  pattern: readonly string[];
  decision: RuleDecision;
  justification?: string;
  createdAt: string;
}

/** The text of one rule, starting with its `[[rule]]` header and ending with a newline. */
export function formatRule(rule: NewRuleText): string {
  const table: Record<string, unknown> = { id: rule.id, pattern: [...rule.pattern], decision: rule.decision };
  if (rule.justification !== undefined) table['justification'] = rule.justification;
  table['created_at'] = rule.createdAt;
  return `[[rule]]\n${stringify(table)}\n`;
}

/** `text` plus one rule; a new file starts with the format header. */
export function appendRule(text: string | null, rule: NewRuleText): string {
  const base = text === null || text.trim() === '' ? RULES_FILE_HEADER : text;
  const separator = base.endsWith('\n\n') ? '' : base.endsWith('\n') ? '\n' : '\n\n';
  return `${base}${separator}${formatRule(rule)}`;
}

/** `text` without the rule whose id is `id` (its whole `[[rule]]` table); null when it is not there. */
export function removeRule(file: string, text: string, id: string): string | null {
  const lines = text.split('\n');
  const target = parseRulesFile(file, text).rules.find((rule) => rule.id === id);
  if (target === undefined) return null;
  const chunk = chunks(lines).find((c) => c.isRule && c.start === target.line - 1);
  if (chunk === undefined) return null;
  return [...lines.slice(0, chunk.start), ...lines.slice(chunk.end)].join('\n');
}
