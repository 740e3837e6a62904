// Shell scripts read with a real bash parser (tree-sitter-bash), never with regexes.
//
// Two views of a script:
// - `parseShellScript`: the argv of every simple command when the script is *plain*: commands made only
//   of literal words (bare, 'single' or "double" quoted without expansions) joined by `&&`, `||`, `;`,
//   `|` or newlines. Anything else (substitutions, expansions, globs, redirections, assignments,
//   subshells, `&`, control flow, syntax errors…) makes the script not plain: null.
// - `commandWordsSync`: a best-effort list of every command anywhere in the script (inside
//   substitutions, subshells, functions…), for detecting dangerous commands and forbidden rules in
//   scripts that are not plain. Words that are not literal keep their source text.
//
// The grammar is loaded lazily once per process (about 200 ms: web-tree-sitter's 156 KB of JavaScript,
// its WebAssembly, the grammar, and a first parse that a run without commands never needs); the sync
// functions need it loaded first (`loadShellParser`, or any async function of this module). A *simple*
// script (`simpleScript`: words of safe characters or quoted text without expansions, joined by `&&`,
// `||`, `;` or `|`) is read without the grammar: most commands an agent runs are simple, so a short
// `weft exec` often never loads it. Its result is the grammar's own for every such script (a test
// compares them on generated scripts).
import { createRequire } from 'node:module';
import { basename } from 'node:path';
import { setFlagsFromString } from 'node:v8';
import type { Node, Parser } from 'web-tree-sitter';

const require = createRequire(import.meta.url);

let parser: Parser | null = null;
let loading: Promise<Parser> | null = null;

/** Loads the bash grammar once; later calls return at once. */
export async function loadShellParser(): Promise<void> {
  if (parser !== null) return;
  loading ??= (async () => {
    keepWasmOnBaselineTier();
    const { Language, Parser } = await import('web-tree-sitter');
    await Parser.init({ locateFile: () => require.resolve('web-tree-sitter/web-tree-sitter.wasm') });
    const language = await Language.load(require.resolve('tree-sitter-bash/tree-sitter-bash.wasm'));
    const created = new Parser();
    created.setLanguage(language);
    return created;
  })();
  try {
    parser = await loading;
  } catch (error) {
    loading = null;
    throw error;
  }
}

/**
 * Keeps this process's WebAssembly on V8's baseline compiler (Liftoff). The grammar's lexer is one function
 * of 160 KB; at the first parse V8 compiles it again at its optimizing tier in the background, which takes 2
 * to 3.5 s of CPU and, on Node 24, about 660 MB of compiler memory (60 MB on Node 20): a spike at the first
 * non-simple command of every host process, with a core taken from everything else. On the baseline tier a
 * parse is about 0.18 ms instead of 0.14 ms. The flags are process-wide and read when V8 would tier up, so
 * they are set before the grammar loads and never reset; the only other WebAssembly in a Weft process is the
 * HTTP parser of Node's `fetch`, whose speed on model streams does not change measurably.
 *
 * Only here, when the grammar loads, never at start-up: a V8 flag set at run time changes the hash V8 checks
 * code caches against, so every Node built-in module loaded after it is compiled from its source instead of
 * Node's embedded cache (the first `new Headers()`, which loads `fetch`, took 45 ms instead of 25).
 */
function keepWasmOnBaselineTier(): void {
  setFlagsFromString('--liftoff-only');
  // What --liftoff-only implies when given on the command line; V8 does not re-derive it at run time.
  setFlagsFromString('--no-wasm-tier-up');
  setFlagsFromString('--no-wasm-dynamic-tiering');
}

/** Whether the sync functions can read `script` now: the grammar is loaded, or the script is simple. */
export function canParseSync(script: string): boolean {
  return parser !== null || simpleScript(script) !== null;
}

/** The argv of each simple command when `script` is plain (see the file header), else null. */
export async function parseShellScript(script: string): Promise<string[][] | null> {
  const simple = simpleScript(script);
  if (simple !== null) return simple;
  await loadShellParser();
  return parseShellScriptSync(script);
}

/** `parseShellScript` for callers that can parse now (`canParseSync`); throws if they cannot. */
export function parseShellScriptSync(script: string): string[][] | null {
  return simpleScript(script) ?? grammarCommands(script);
}

/** The grammar's reading of `script` (plain commands or null), simple or not; needs the grammar loaded. */
export function grammarCommands(script: string): string[][] | null {
  return withTree(script, (root) => {
    if (root.hasError) return null;
    const commands: string[][] = [];
    return plainSequence(root, commands) && commands.length > 0 ? commands : null;
  });
}

/**
 * Every command found anywhere in `script`, best effort: literal words are unquoted, other words keep
 * their source text. Null when the grammar is not loaded.
 */
export function commandWordsSync(script: string): string[][] | null {
  const simple = simpleScript(script);
  if (simple !== null) return simple;
  return parser === null ? null : grammarCommandWords(script);
}

/** The grammar's `commandWordsSync`, simple script or not; needs the grammar loaded. */
export function grammarCommandWords(script: string): string[][] {
  return withTree(script, (root) => {
    const found: string[][] = [];
    collectCommands(root, found);
    return found;
  });
}

/** `commandWordsSync` after loading the grammar (when the script is not simple). */
export async function commandWords(script: string): Promise<string[][]> {
  const simple = simpleScript(script);
  if (simple !== null) return simple;
  await loadShellParser();
  return commandWordsSync(script) ?? [];
}

/** Characters of an unquoted word that the shell takes as they are (no expansion, quoting or operator). */
const SIMPLE_WORD_CHAR = /[A-Za-z0-9_@%+:,./-]/;
/**
 * What a simple command's name may hold: no `=` (an assignment), and none of the characters tree-sitter-bash
 * reads differently in a command name (`a@b` is not one word to it).
 */
const COMMAND_NAME = /^[A-Za-z0-9_./+-]+$/;
/** Bash's reserved words: a command starting with one is not simple. */
const RESERVED = new Set([
  'case',
  'coproc',
  'do',
  'done',
  'elif',
  'else',
  'esac',
  'fi',
  'for',
  'function',
  'if',
  'in',
  'select',
  'then',
  'time',
  'until',
  'while',
]);
/** Longest script read without the grammar. */
const SIMPLE_MAX = 4096;

/**
 * The commands of a simple script, or null when it is not simple (the grammar decides then). Simple:
 * words made of SIMPLE_WORD_CHARs, 'single-quoted' text without a newline, and "double-quoted" text
 * without `$`, backtick, backslash, `!` or a newline (pieces of one word may be joined), separated by
 * spaces or tabs; commands joined by `&&`, `||`, `;` or `|`, none empty, none starting with a reserved
 * word or a name COMMAND_NAME refuses.
 */
export function simpleScript(script: string): string[][] | null {
  if (script.length === 0 || script.length > SIMPLE_MAX) return null;
  const commands: string[][] = [];
  let argv: string[] = [];
  let word: string | null = null;
  const endWord = (): void => {
    if (word !== null) argv.push(word);
    word = null;
  };
  const endCommand = (): boolean => {
    endWord();
    const first = argv[0];
    if (first === undefined || RESERVED.has(first) || !COMMAND_NAME.test(first)) return false;
    commands.push(argv);
    argv = [];
    return true;
  };
  for (let i = 0; i < script.length; i++) {
    const ch = script.charAt(i);
    if (ch === ' ' || ch === '\t') {
      endWord();
    } else if (ch === '&' || ch === '|' || ch === ';') {
      const double = script.charAt(i + 1) === ch;
      if (ch === '&' && !double) return null;
      if (ch === ';' && double) return null;
      if (double) i++;
      if (!endCommand()) return null;
    } else if (ch === "'" || ch === '"') {
      const close = script.indexOf(ch, i + 1);
      if (close < 0) return null;
      const text = script.slice(i + 1, close);
      if (text.includes('\n') || text.includes('\r')) return null;
      if (ch === '"' && /[$`\\!]/.test(text)) return null;
      word = (word ?? '') + text;
      i = close;
    } else if (SIMPLE_WORD_CHAR.test(ch)) {
      word = (word ?? '') + ch;
    } else {
      return null;
    }
  }
  return endCommand() ? commands : null;
}

export interface ShellWrapper {
  /** Basename of the shell: bash, sh or zsh. */
  shell: string;
  /** Whether it was `-lc` (login shell) rather than `-c`. */
  login: boolean;
  script: string;
}

const WRAPPER_SHELLS = new Set(['bash', 'sh', 'zsh']);

/** Recognises `bash|sh|zsh -c|-lc <script>` (shell given by name or absolute path), else null. */
export function splitShellWrapper(argv: readonly string[]): ShellWrapper | null {
  if (argv.length !== 3) return null;
  const [program, flag, script] = argv;
  if (program === undefined || flag === undefined || script === undefined) return null;
  const shell = basename(program);
  if (!WRAPPER_SHELLS.has(shell) || (program.includes('/') && !program.startsWith('/'))) return null;
  if (flag !== '-c' && flag !== '-lc') return null;
  return { shell, login: flag === '-lc', script };
}

/**
 * The script an argv stands for, for approval checks of argv-style tool calls (`shell`): the script of
 * a `bash -lc <script>` wrapper, else the words shell-quoted so that parsing gives `argv` back.
 */
export function scriptForArgv(argv: readonly string[]): string {
  const wrapper = splitShellWrapper(argv);
  if (wrapper !== null) return wrapper.script;
  return argv
    .map((word) => (/^[A-Za-z0-9_@%+=:,./-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`))
    .join(' ');
}

function withTree<T>(script: string, read: (root: Node) => T): T {
  if (parser === null) throw new Error('the bash parser is not loaded: await loadShellParser() first');
  const tree = parser.parse(script);
  if (tree === null) throw new Error('the bash parser returned no tree');
  try {
    return read(tree.rootNode);
  } finally {
    tree.delete();
  }
}

const SEQUENCE_OPERATORS = new Set([';', '&&', '||']);

/** program / list: plain commands or pipelines joined by `;`, `&&`, `||` (newlines leave no token). */
function plainSequence(node: Node, out: string[][]): boolean {
  for (const child of node.children) {
    if (!child.isNamed) {
      if (!SEQUENCE_OPERATORS.has(child.type)) return false;
      continue;
    }
    switch (child.type) {
      case 'comment':
        break;
      case 'list':
        if (!plainSequence(child, out)) return false;
        break;
      case 'pipeline':
        if (!plainPipeline(child, out)) return false;
        break;
      case 'command':
        if (!plainCommand(child, out)) return false;
        break;
      default:
        return false;
    }
  }
  return true;
}

function plainPipeline(node: Node, out: string[][]): boolean {
  for (const child of node.children) {
    if (!child.isNamed) {
      if (child.type !== '|') return false;
      continue;
    }
    if (child.type !== 'command' || !plainCommand(child, out)) return false;
  }
  return true;
}

function plainCommand(node: Node, out: string[][]): boolean {
  const argv: string[] = [];
  for (const child of node.children) {
    const part = child.type === 'command_name' ? onlyChild(child) : child;
    if (part === null) return false;
    const word = literalWord(part);
    if (word === null) return false;
    argv.push(word);
  }
  if (argv.length === 0) return false;
  out.push(argv);
  return true;
}

function onlyChild(node: Node): Node | null {
  return node.childCount === 1 ? node.child(0) : null;
}

/** The value of a word made only of literal pieces, or null when it expands to anything else. */
function literalWord(node: Node): string | null {
  switch (node.type) {
    case 'word':
    case 'number':
      return unquotedText(node.text);
    case 'raw_string':
      return node.text.length >= 2 ? node.text.slice(1, -1) : null;
    case 'string':
      return doubleQuoted(node);
    case 'concatenation': {
      let value = '';
      for (const piece of node.children) {
        const text = literalWord(piece);
        if (text === null) return null;
        value += text;
      }
      return value;
    }
    default:
      return null;
  }
}

/**
 * An unquoted word: backslash escapes are resolved; anything the shell would expand (globs `* ? [`,
 * braces, a leading or post-`=`/`:` tilde, `$`, backticks) makes it non-literal (null).
 */
function unquotedText(text: string): string | null {
  let value = '';
  for (let i = 0; i < text.length; i++) {
    const ch = text.charAt(i);
    if (ch === '\\') {
      const next = text.charAt(i + 1);
      i++;
      if (next === '\n' || next === '') continue;
      value += next;
      continue;
    }
    if ('*?[]{}$`'.includes(ch)) return null;
    if (ch === '~' && (i === 0 || text.charAt(i - 1) === '=' || text.charAt(i - 1) === ':')) return null;
    value += ch;
  }
  return value;
}

function doubleQuoted(node: Node): string | null {
  let value = '';
  for (const child of node.children) {
    if (!child.isNamed) {
      if (child.type !== '"') return null;
      continue;
    }
    if (child.type !== 'string_content') return null;
    const content = doubleQuotedContent(child.text);
    if (content === null) return null;
    value += content;
  }
  return value;
}

/** Inside "…": `\` escapes only `$ \` " \\` and newline; an unescaped `$` or backtick expands. */
function doubleQuotedContent(text: string): string | null {
  let value = '';
  for (let i = 0; i < text.length; i++) {
    const ch = text.charAt(i);
    if (ch === '\\') {
      const next = text.charAt(i + 1);
      if ('$`"\\'.includes(next) && next !== '') {
        value += next;
        i++;
        continue;
      }
      if (next === '\n') {
        i++;
        continue;
      }
      value += ch;
      continue;
    }
    if (ch === '$' || ch === '`') return null;
    value += ch;
  }
  return value;
}

function collectCommands(node: Node, out: string[][]): void {
  if (node.type === 'command') {
    const argv: string[] = [];
    for (const child of node.children) {
      if (child.type === 'variable_assignment') continue;
      const part = child.type === 'command_name' ? (onlyChild(child) ?? child) : child;
      if (!part.isNamed || part.type === 'file_redirect' || part.type === 'herestring_redirect') continue;
      argv.push(literalWord(part) ?? part.text);
    }
    if (argv.length > 0) out.push(argv);
  }
  for (const child of node.children) collectCommands(child, out);
}
