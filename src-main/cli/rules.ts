// `weft rules`: lists, adds and revokes remembered approval rules (WEFT_HOME/rules/*.toml).
import { parseArgs } from 'node:util';
import { resolveWeftHome } from '../config/home';
import type { Rule, RuleDecision } from '../safety/approvals/rules';
import { RuleStore, rulesDir } from '../safety/approvals/rules';
import { dispatchSubCommand } from './sub-commands';

const USAGE = `Usage: weft rules list [--json]
       weft rules revoke <id>
       weft rules add --decision allow|prompt|forbidden [--justification <text>] -- <word>…

Remembered approval rules match commands by their first words ("git push" matches "git push origin
main"). When several match, the strictest wins: forbidden > prompt > allow.

  list     Show every rule with its id, decision, pattern and file
  revoke   Remove the rule with this id from its file
  add      Add a rule, e.g. \`weft rules add --decision forbidden -- git push --force\`
`;

const DECISIONS: readonly RuleDecision[] = ['allow', 'prompt', 'forbidden'];

function isDecision(value: string): value is RuleDecision {
  return (DECISIONS as readonly string[]).includes(value);
}

export async function runRulesCommand(argv: string[]): Promise<number> {
  const store = new RuleStore(rulesDir(resolveWeftHome(process.env)));
  return dispatchSubCommand(
    {
      command: 'rules',
      usage: USAGE,
      verbs: {
        list: { aliases: ['ls'], run: (rest) => list(store, rest) },
        revoke: { aliases: ['rm'], run: (rest) => revoke(store, rest) },
        add: { run: (rest) => add(store, rest) },
      },
    },
    argv,
  );
}

async function loadWithWarnings(store: RuleStore): Promise<void> {
  for (const warning of await store.load()) process.stderr.write(`weft: warning: ${warning}\n`);
}

async function list(store: RuleStore, argv: string[]): Promise<number> {
  const { values } = parseArgs({ args: argv, options: { json: { type: 'boolean' } } });
  await loadWithWarnings(store);
  const rules = store.list();
  if (values.json === true) {
    process.stdout.write(`${JSON.stringify(rules)}\n`);
    return 0;
  }
  if (rules.length === 0) {
    process.stdout.write(`No rules in ${store.dir}.\n`);
    return 0;
  }
  const rows = [['ID', 'DECISION', 'PATTERN', 'FILE'], ...rules.map(row)];
  const widths = rows[0]?.map((_, col) => Math.max(...rows.map((r) => (r[col] ?? '').length))) ?? [];
  const text = rows.map((r) =>
    r.map((cell, col) => (col === r.length - 1 ? cell : cell.padEnd(widths[col] ?? 0))).join('  '),
  );
  for (const rule of rules) {
    if (rule.justification !== undefined) text.push(`  ${rule.id}: ${rule.justification}`);
  }
  process.stdout.write(`${text.join('\n')}\n`);
  return 0;
}

function row(rule: Rule): string[] {
  return [rule.id, rule.decision, rule.pattern.map(shellWord).join(' '), `${rule.sourceFile}:${rule.line}`];
}

async function revoke(store: RuleStore, argv: string[]): Promise<number> {
  const { positionals } = parseArgs({ args: argv, allowPositionals: true, options: {} });
  const [id, extra] = positionals;
  if (id === undefined || extra !== undefined) {
    process.stderr.write('weft rules revoke: give exactly one rule id (see `weft rules list`)\n');
    return 2;
  }
  await loadWithWarnings(store);
  const removed = await store.revoke(id);
  if (removed === null) {
    process.stderr.write(`weft rules revoke: no rule has the id "${id}"; \`weft rules list\` shows the ids\n`);
    return 1;
  }
  process.stdout.write(
    `Revoked ${removed.id} (${removed.decision}: ${removed.pattern.map(shellWord).join(' ')}) from ${removed.sourceFile}\n`,
  );
  return 0;
}

async function add(store: RuleStore, argv: string[]): Promise<number> {
  const dashes = argv.indexOf('--');
  const { values, positionals } = parseArgs({
    args: dashes === -1 ? argv : argv.slice(0, dashes),
    allowPositionals: dashes === -1,
    options: { decision: { type: 'string' }, justification: { type: 'string' } },
  });
  const words = dashes === -1 ? positionals : argv.slice(dashes + 1);
  const decision = values.decision;
  if (decision === undefined || !isDecision(decision)) {
    process.stderr.write(`weft rules add: --decision must be one of ${DECISIONS.join(', ')}\n`);
    return 2;
  }
  if (words.length === 0 || words.some((word) => word === '')) {
    process.stderr.write('weft rules add: give the command words after `--`, e.g. `-- git push`\n');
    return 2;
  }
  await loadWithWarnings(store);
  const rule = await store.add({
    pattern: words,
    decision,
    ...(values.justification === undefined ? {} : { justification: values.justification }),
  });
  process.stdout.write(
    `Added ${rule.id} (${rule.decision}: ${rule.pattern.map(shellWord).join(' ')}) to ${rule.sourceFile}\n`,
  );
  return 0;
}

/** A word as it would be typed in a shell (quoted when it holds anything special). */
function shellWord(word: string): string {
  return /^[A-Za-z0-9_@%+=:,./-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}
