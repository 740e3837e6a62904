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
  const body = script.slice(match[0].length);
  // The first line that is the delimiter (after a `\r`, leading tabs with `<<-`, trailing blanks), found
  // by searching for the word rather than splitting a patch of megabytes into lines.
  for (let from = 0; ;) {
    const hit = body.indexOf(delimiter, from);
    if (hit < 0) return null;
    const start = body.lastIndexOf('\n', hit - 1) + 1;
    const newline = body.indexOf('\n', hit);
    const end = newline < 0 ? body.length : newline;
    let line = body.slice(start, end);
    if (line.endsWith('\r')) line = line.slice(0, -1);
    if (stripTabs) line = line.replace(/^\t+/, '');
    if (line.trimEnd() === delimiter) {
      if (body.slice(end).trim() !== '') return null;
      let patch = body.slice(0, Math.max(0, start - 1)).replace(/\r\n/g, '\n');
      if (patch.endsWith('\r')) patch = patch.slice(0, -1);
      if (stripTabs) patch = patch.replace(/(^|\n)\t+/g, '$1');
      return { patch, workdir: match[1] === undefined ? null : unquoteDirectory(match[1]) };
    }
    from = hit + 1;
  }
}
