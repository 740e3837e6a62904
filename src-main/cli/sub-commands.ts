// Sub-command dispatch for commands made of verbs (`weft mcp list`, `weft rules revoke <id>`): one table
// of verbs with their aliases, help on `help`/`-h`/`--help` (exit 0) or on nothing (exit 2), an unknown
// verb named with the usage (exit 2), and anything thrown printed as `weft <command>: <message>` (exit 1).
import { errorMessage } from '../util/errors';

export interface SubCommand {
  /** Other words that run it (`ls` for `list`). */
  aliases?: readonly string[];
  run(argv: string[]): Promise<number>;
}

export interface SubCommandTable {
  /** The command's name after `weft`, used in messages. */
  command: string;
  usage: string;
  verbs: Readonly<Record<string, SubCommand>>;
}

export interface SubCommandIo {
  stdout: NodeJS.WritableStream;
  stderr: NodeJS.WritableStream;
}

const HELP_WORDS: ReadonlySet<string> = new Set(['help', '--help', '-h']);

/** The verb `word` names in the table (by name or alias), if any. */
export function findSubCommand(table: SubCommandTable, word: string): SubCommand | undefined {
  if (Object.hasOwn(table.verbs, word)) return table.verbs[word];
  return Object.values(table.verbs).find((verb) => verb.aliases?.includes(word));
}

/** Runs the verb `argv[0]` names with the rest of argv; resolves to the exit code. */
export async function dispatchSubCommand(
  table: SubCommandTable,
  argv: readonly string[],
  io: SubCommandIo = process,
): Promise<number> {
  const [word, ...rest] = argv;
  if (word === undefined || HELP_WORDS.has(word)) {
    io.stdout.write(table.usage);
    return word === undefined ? 2 : 0;
  }
  const verb = findSubCommand(table, word);
  if (verb === undefined) {
    io.stderr.write(`weft ${table.command}: unknown sub-command "${word}"\n\n${table.usage}`);
    return 2;
  }
  try {
    return await verb.run(rest);
  } catch (error) {
    io.stderr.write(`weft ${table.command}: ${errorMessage(error)}\n`);
    return 1;
  }
}
