// Diff texts that pin what the one unified-diff reader (src-preload/diff) must handle: the forms Weft's core,
// git and Codex write. Used by the reader's tests and those of its callers.

/** A file's diff as the core writes a fileChange entry: `---`/`+++`, two hunks, a section heading. */
export const UPDATE = [
  '--- a/src/n.txt',
  '+++ b/src/n.txt',
  '@@ -1,3 +1,3 @@',
  '-one',
  '+ONE',
  ' two',
  ' three',
  '@@ -9,4 +9,5 @@ function eleven() {',
  ' nine',
  ' ten',
  '-eleven',
  '+ELEVEN',
  '+eleven and a half',
  ' twelve',
  '',
].join('\n');

/** A new file of one line without a final line break: `@@ -0,0 +1 @@` (the count of 1 left out). */
export const ADD_ONE_LINE = [
  '--- /dev/null',
  '+++ b/new.txt',
  '@@ -0,0 +1 @@',
  '+only',
  '\\ No newline at end of file',
  '',
].join('\n');

/** A deleted file. */
export const DELETE = ['--- a/old.txt', '+++ /dev/null', '@@ -1,2 +0,0 @@', '-x', '-y', ''].join('\n');

/** "\ No newline" on both sides of a one-line change, and after a context line. */
export const NO_NEWLINE = [
  '--- a/a.txt',
  '+++ b/a.txt',
  '@@ -1,2 +1,2 @@',
  ' keep',
  '-old',
  '\\ No newline at end of file',
  '+new',
  '\\ No newline at end of file',
  '',
].join('\n');

export const NO_NEWLINE_CONTEXT = [
  '--- a/c.txt',
  '+++ b/c.txt',
  '@@ -1,2 +1,3 @@',
  '+first',
  ' a',
  ' b',
  '\\ No newline at end of file',
  '',
].join('\n');

/** CRLF content: every line of the file ends in \r, which stays part of the line's text. */
export const CRLF = ['--- a/w.txt', '+++ b/w.txt', '@@ -1,2 +1,2 @@', ' a\r', '-b\r', '+B\r', ''].join('\n');

/** Lines whose text starts like a file header: a removed `-- comment` and an added `++ x`. */
export const HEADER_LIKE_LINES = [
  '--- a/q.sql',
  '+++ b/q.sql',
  '@@ -1,3 +1,3 @@',
  ' select 1;',
  '--- a comment',
  '+++ x',
  ' select 2;',
  '',
].join('\n');

/** A context line whose leading space was stripped (some editors trim trailing whitespace). */
export const STRIPPED_CONTEXT = ['--- a/s.txt', '+++ b/s.txt', '@@ -1,3 +1,3 @@', ' a', '', '-b', '+B', ''].join('\n');

/** Hunks alone, as Codex writes a fileChange's `unified_diff`. */
export const HUNKS_ONLY = ['@@ -2,2 +2,2 @@', ' two', '-three', '+THREE', ''].join('\n');

/** A binary file in a fileChange entry (no `diff --git` line). */
export const BINARY_PLAIN = 'Binary files a/img.png and /dev/null differ\n';

/** A hunk the core cut (WEFT_DIFF_MAX_CHARS), ending in the marker line. */
export const CUT = [
  '--- a/big.txt',
  '+++ b/big.txt',
  '@@ -1,2 +1,2 @@',
  '-a',
  '+A',
  ' b',
  '~ Weft left out 9,999 of 10,000 hunks: diffs are cut at 1 MiB (the whole diff: 1 file, +10,000 −10,000 lines).',
  '',
].join('\n');

/** A turn's diff as git writes it: an update, a new file, a deletion, a rename, a mode change, binaries. */
export const TURN = [
  'diff --git a/a.txt b/a.txt',
  'index 1111111..2222222 100644',
  '--- a/a.txt',
  '+++ b/a.txt',
  '@@ -1 +1 @@',
  '-a',
  '+A',
  'diff --git a/b.txt b/b.txt',
  'new file mode 100644',
  'index 0000000..3333333',
  '--- /dev/null',
  '+++ b/b.txt',
  '@@ -0,0 +1 @@',
  '+b',
  'diff --git a/gone.txt b/gone.txt',
  'deleted file mode 100644',
  'index 4444444..0000000',
  '--- a/gone.txt',
  '+++ /dev/null',
  '@@ -1,2 +0,0 @@',
  '-g',
  '-h',
  'diff --git a/from.txt b/to.txt',
  'similarity index 80%',
  'rename from from.txt',
  'rename to to.txt',
  'index 5555555..6666666 100644',
  '--- a/from.txt',
  '+++ b/to.txt',
  '@@ -1,2 +1,2 @@',
  ' same',
  '-old',
  '+new',
  'diff --git a/run.sh b/run.sh',
  'old mode 100644',
  'new mode 100755',
  'diff --git a/img.png b/img.png',
  'new file mode 100644',
  'index 0000000..7777777',
  'Binary files /dev/null and b/img.png differ',
  'diff --git a/huge.bin b/huge.bin',
  '~ Weft left out the content of huge.bin: it was too large to be checkpointed',
  'diff --git "a/caf\\303\\251.txt" "b/caf\\303\\251.txt"',
  'index 8888888..9999999 100644',
  '--- "a/caf\\303\\251.txt"',
  '+++ "b/caf\\303\\251.txt"',
  '@@ -1 +1 @@',
  '-x',
  '+y',
  '~ Weft left out 1 of 9 hunks: diffs are cut at 1 MiB (the whole diff: 9 files, +9 −9 lines).',
  '',
].join('\n');

/** Counts that do not match the lines: jsdiff refuses it. */
export const MISCOUNTED = ['--- a/m.txt', '+++ b/m.txt', '@@ -1,3 +1,3 @@', ' a', '-b', '+B', ''].join('\n');
