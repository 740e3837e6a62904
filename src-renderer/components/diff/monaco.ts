// Monaco, set up once for the whole page: only the editor core, the diff editor, the codicon font and the
// syntax-colouring grammars (no language services, so no red squiggles in partial files and a single
// worker). Loaded lazily, the first time a diff or a highlighted code block is shown.
import { resolvedScheme, subscribeScheme } from '../use-color-scheme';
import * as monaco from 'monaco-editor/editor/editor.api';
import 'monaco-editor/features/diffEditor/register';
import 'monaco-editor/features/codicon/register';
import 'monaco-editor/features/find/register';
import 'monaco-editor/languages/definitions/register.all';
import EditorWorker from 'monaco-editor/editor/editor.worker?worker';

export { monaco };

globalThis.MonacoEnvironment = {
  // Every label gets the plain editor worker: no language service is registered (see above), so the
  // diff computation is all that runs off the main thread.
  getWorker: () => new EditorWorker(),
};

function cssVar(name: string, fallback: string): string {
  const value = getComputedStyle(document.documentElement).getPropertyValue(name).trim();
  return /^#[0-9a-fA-F]{3,8}$/.test(value) ? value : fallback;
}

/** Monaco themes with the app's surface colours, light and dark; re-read when the OS theme flips. */
function defineThemes(): void {
  const shared = (dark: boolean): monaco.editor.IStandaloneThemeData => ({
    base: dark ? 'vs-dark' : 'vs',
    inherit: true,
    rules: [],
    colors: {
      'editor.background': cssVar('--surface-code', dark ? '#1b1c20' : '#fbfbfc'),
      'editorGutter.background': cssVar('--surface-code', dark ? '#1b1c20' : '#fbfbfc'),
      'editorLineNumber.foreground': dark ? '#5c5f68' : '#a4a8b0',
      'diffEditor.insertedLineBackground': dark ? '#2ea04322' : '#2da44e1a',
      'diffEditor.removedLineBackground': dark ? '#f8514922' : '#cf222e14',
      'diffEditor.insertedTextBackground': dark ? '#2ea04340' : '#2da44e33',
      'diffEditor.removedTextBackground': dark ? '#f8514940' : '#cf222e2e',
      'diffEditor.unchangedRegionBackground': dark ? '#202126' : '#f3f3f5',
      'editor.lineHighlightBackground': '#00000000',
      'editor.lineHighlightBorder': '#00000000',
      'scrollbarSlider.background': dark ? '#ffffff1f' : '#0000001a',
    },
  });
  monaco.editor.defineTheme('weft-light', shared(false));
  monaco.editor.defineTheme('weft-dark', shared(true));
}

export function currentTheme(): string {
  return resolvedScheme() === 'dark' ? 'weft-dark' : 'weft-light';
}

defineThemes();
monaco.editor.setTheme(currentTheme());
subscribeScheme(() => {
  defineThemes();
  monaco.editor.setTheme(currentTheme());
});

/** Every line of a one-sided diff (see `one-sided.ts`) marked added or removed, with the sign in the gutter. */
export function wholeSideMarks(
  model: monaco.editor.ITextModel,
  kind: 'added' | 'removed',
): monaco.editor.IModelDeltaDecoration[] {
  const line = kind === 'added' ? 'line-insert' : 'line-delete';
  const gutter =
    kind === 'added' ? 'gutter-insert diff-sign diff-sign-insert' : 'gutter-delete diff-sign diff-sign-delete';
  return [
    {
      range: new monaco.Range(1, 1, model.getLineCount(), 1),
      options: { isWholeLine: true, className: line, linesDecorationsClassName: gutter },
    },
  ];
}

/** The Monaco language id for a file name (by extension or exact name); 'plaintext' when none fits. */
export function languageForPath(path: string): string {
  const name = (path.split(/[\\/]/).pop() ?? path).toLowerCase();
  const languages = monaco.languages.getLanguages();
  for (const language of languages) {
    if (language.filenames?.some((f) => f.toLowerCase() === name)) return language.id;
  }
  let best: { id: string; length: number } | null = null;
  for (const language of languages) {
    for (const extension of language.extensions ?? []) {
      const ext = extension.toLowerCase();
      if (name.endsWith(ext) && (best === null || ext.length > best.length))
        best = { id: language.id, length: ext.length };
    }
  }
  return best?.id ?? 'plaintext';
}

/** The Monaco language id for a Markdown fence label such as `ts`, `python`, `sh`. */
export function languageForFence(label: string): string | null {
  const wanted = label.trim().toLowerCase();
  if (wanted === '') return null;
  for (const language of monaco.languages.getLanguages()) {
    if (language.id === wanted || language.aliases?.some((a) => a.toLowerCase() === wanted)) return language.id;
    if (language.extensions?.some((e) => e.toLowerCase() === `.${wanted}`)) return language.id;
  }
  return null;
}

/** Syntax-coloured HTML for `code` (Monaco escapes the text; callers still sanitize). */
export function colorize(code: string, languageId: string): Promise<string> {
  return monaco.editor.colorize(code, languageId, { tabSize: 4 });
}
