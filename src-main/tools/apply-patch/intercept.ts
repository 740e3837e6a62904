// Recognising a shell script that only runs apply_patch with a heredoc, so the patch can be applied by the
// engine instead of a shell.

/** `cd <dir> && ` (optional), the command, and the heredoc operator with its delimiter, on the first line. */
const INVOCATION = new RegExp(
  '^(?:cd[ \\t]+(' +
    "'[^']*'" + // single-quoted directory
    '|"(?:[^"\\\\]|\\\\.)*"' + // double-quoted directory
    '|(?:[^\\s\'"&|;<>()$`\\\\]|\\\\.)+' + // bare word, backslash escapes allowed
    ')[ \\t]*&&[ \\t]*)?' +
    '(?:apply_patch|applypatch)[ \\t]*<<(-?)[ \\t]*' +
    '(?:\'([^\'\\n]+)\'|"([^"\\n]+)"|([A-Za-z_][A-Za-z0-9_]*))' +
    '[ \\t]*\\r?\\n',
);

function unquoteDirectory(word: string): string {
  if (word.startsWith("'")) return word.slice(1, -1);
  if (word.startsWith('"')) return word.slice(1, -1).replace(/\\(["\\$`])/g, '$1');
  return word.replace(/\\(.)/g, '$1');
}

/**
 * The patch and working directory of a script that is exactly `apply_patch <<'EOF'` … `EOF` (also
 * `applypatch`, `<<EOF`, `<<"EOF"`, any delimiter word, `<<-`), optionally preceded by `cd <dir> &&`.
 * Anything else in the script (other commands, text after the closing delimiter, a missing closing
 * delimiter) means it is not an apply_patch invocation: null.
 */
export function extractApplyPatchInvocation(cmd: string): { patch: string; workdir: string | null } | null {
  const script = cmd.trimStart();
  const match = INVOCATION.exec(script);
  if (!match) return null;
  const stripTabs = match[2] === '-';
  const delimiter = match[3] ?? match[4] ?? match[5] ?? '';
  const lines = script.slice(match[0].length).split('\n');
  const body: string[] = [];
  for (let i = 0; i < lines.length; i++) {
    let line = lines[i] ?? '';
    if (line.endsWith('\r')) line = line.slice(0, -1);
    if (stripTabs) line = line.replace(/^\t+/, '');
    if (line.trimEnd() === delimiter) {
      const rest = lines.slice(i + 1).join('\n');
      if (rest.trim() !== '') return null;
      return { patch: body.join('\n'), workdir: match[1] === undefined ? null : unquoteDirectory(match[1]) };
    }
    body.push(line);
  }
  return null;
}
