// A read-only Monaco diff where clicking a line number starts a comment on that line, comments show as
// marked lines, and a given line range can be revealed and highlighted (a review finding). A new or
// deleted file (one empty side) is a plain editor of the other side, every line marked added or removed.
import { useEffect, useLayoutEffect, useRef } from 'react';
import { currentTheme, languageForPath, monaco, wholeSideMarks } from '../../components/diff/monaco';
import { oneSided } from '../../components/diff/one-sided';

export interface CommentableDiffProps {
  original: string;
  modified: string;
  path: string;
  sideBySide: boolean;
  /** Lines (modified side) that carry a comment. */
  commented: readonly number[];
  /** Highlight and scroll to these lines of the modified side. */
  focus: { lineStart: number; lineEnd: number; nonce: number } | null;
  onLineClick: (side: 'original' | 'modified', line: number) => void;
  label: string;
}

const LINE_HEIGHT = 19;
const MAX_HEIGHT = 420;

export default function CommentableDiff(props: CommentableDiffProps) {
  const { original, modified, path, sideBySide, commented, focus, onLineClick, label } = props;
  const host = useRef<HTMLDivElement>(null);
  const editorRef = useRef<monaco.editor.IStandaloneDiffEditor | null>(null);
  /** The editor of the modified side, or the only editor of a one-sided view. */
  const mainRef = useRef<monaco.editor.ICodeEditor | null>(null);
  const modelsRef = useRef<monaco.editor.ITextModel[]>([]);
  const marks = useRef<monaco.editor.IEditorDecorationsCollection | null>(null);
  const whole = useRef<monaco.editor.IEditorDecorationsCollection | null>(null);
  const clickRef = useRef(onLineClick);
  // The props as of the last render, for the effect that builds the editor: it reads them without being
  // re-run by them (text and layout are updated in place by the effects below).
  const latest = useRef({ original, modified, sideBySide, label });
  useLayoutEffect(() => {
    clickRef.current = onLineClick;
    latest.current = { original, modified, sideBySide, label };
  });
  const onlyKind = oneSided(original, modified)?.kind ?? null;

  useEffect(() => {
    const element = host.current;
    if (element === null) return;
    const { original, modified, sideBySide, label } = latest.current;
    const language = languageForPath(path);
    const shared: monaco.editor.IEditorOptions & monaco.editor.IGlobalEditorOptions = {
      readOnly: true,
      automaticLayout: true,
      theme: currentTheme(),
      fontSize: 12,
      lineHeight: LINE_HEIGHT,
      minimap: { enabled: false },
      scrollBeyondLastLine: false,
      lineNumbersMinChars: 3,
      glyphMargin: false,
      folding: false,
      contextmenu: false,
      stickyScroll: { enabled: false },
      renderLineHighlight: 'none',
      scrollbar: {
        alwaysConsumeMouseWheel: false,
        verticalScrollbarSize: 10,
        horizontalScrollbarSize: 10,
        useShadows: false,
      },
      ariaLabel: label,
    };
    const onMouse = (side: 'original' | 'modified') => (e: monaco.editor.IEditorMouseEvent) => {
      const type = e.target.type;
      if (
        type !== monaco.editor.MouseTargetType.GUTTER_LINE_NUMBERS &&
        type !== monaco.editor.MouseTargetType.GUTTER_LINE_DECORATIONS
      )
        return;
      const line = e.target.position?.lineNumber;
      if (line !== undefined) clickRef.current(side, line);
    };
    let editors: monaco.editor.ICodeEditor[];
    let dispose: () => void;
    const subscriptions: monaco.IDisposable[] = [];
    if (onlyKind === null) {
      const models = {
        original: monaco.editor.createModel(original, language),
        modified: monaco.editor.createModel(modified, language),
      };
      const editor = monaco.editor.createDiffEditor(element, {
        ...shared,
        originalEditable: false,
        renderSideBySide: sideBySide,
        useInlineViewWhenSpaceIsLimited: true,
        renderSideBySideInlineBreakpoint: 560,
        renderOverviewRuler: false,
        hideUnchangedRegions: { enabled: true, contextLineCount: 3, minimumLineCount: 4, revealLineCount: 20 },
      });
      editor.setModel(models);
      editorRef.current = editor;
      editors = [editor.getOriginalEditor(), editor.getModifiedEditor()];
      modelsRef.current = [models.original, models.modified];
      subscriptions.push(
        editor.getModifiedEditor().onMouseDown(onMouse('modified')),
        editor.getOriginalEditor().onMouseDown(onMouse('original')),
      );
      dispose = () => {
        editor.setModel(null);
        editor.dispose();
      };
    } else {
      const model = monaco.editor.createModel(oneSided(original, modified)?.text ?? '', language);
      const editor = monaco.editor.create(element, { ...shared, model, lineDecorationsWidth: 14 });
      editors = [editor];
      modelsRef.current = [model];
      whole.current = editor.createDecorationsCollection(wholeSideMarks(model, onlyKind));
      subscriptions.push(editor.onMouseDown(onMouse(onlyKind === 'added' ? 'modified' : 'original')));
      dispose = () => editor.dispose();
    }
    const main = editors[editors.length - 1] ?? null;
    mainRef.current = main;
    marks.current = main?.createDecorationsCollection() ?? null;
    const fit = (): void => {
      const height = Math.max(...editors.map((e) => e.getContentHeight()));
      element.style.height = `${Math.min(Math.max(height, LINE_HEIGHT * 2), MAX_HEIGHT)}px`;
    };
    subscriptions.push(...editors.map((e) => e.onDidContentSizeChange(fit)));
    if (editorRef.current !== null) subscriptions.push(editorRef.current.onDidUpdateDiff(fit));
    fit();
    return () => {
      for (const s of subscriptions) s.dispose();
      marks.current = null;
      whole.current = null;
      editorRef.current = null;
      mainRef.current = null;
      dispose();
      for (const model of modelsRef.current) model.dispose();
      modelsRef.current = [];
    };
    // Rebuilt when the file changes or a side becomes (or stops being) empty; text is updated in place below.
  }, [path, onlyKind]);

  useEffect(() => {
    const [first, second] = modelsRef.current;
    if (first === undefined) return;
    if (second !== undefined) {
      if (first.getValue() !== original) first.setValue(original);
      if (second.getValue() !== modified) second.setValue(modified);
      return;
    }
    const only = oneSided(original, modified);
    if (only === null || first.getValue() === only.text) return;
    first.setValue(only.text);
    whole.current?.set(wholeSideMarks(first, only.kind));
  }, [original, modified]);

  useEffect(() => {
    editorRef.current?.updateOptions({ renderSideBySide: sideBySide });
  }, [sideBySide]);

  useEffect(() => {
    // Comments and findings are on the modified side: a deleted file has none.
    if (onlyKind === 'removed') {
      marks.current?.set([]);
      return;
    }
    const decorations: monaco.editor.IModelDeltaDecoration[] = commented.map((line) => ({
      range: new monaco.Range(line, 1, line, 1),
      options: { isWholeLine: true, className: 'diff-commented', linesDecorationsClassName: 'diff-commented-gutter' },
    }));
    if (focus !== null) {
      decorations.push({
        range: new monaco.Range(focus.lineStart, 1, focus.lineEnd, 1),
        options: { isWholeLine: true, className: 'diff-focus', linesDecorationsClassName: 'diff-focus-gutter' },
      });
    }
    marks.current?.set(decorations);
  }, [commented, focus, original, modified, onlyKind]);

  useEffect(() => {
    if (focus === null) return;
    const editor = editorRef.current;
    if (editor === null) {
      mainRef.current?.revealLinesInCenter(focus.lineStart, focus.lineEnd);
      return;
    }
    // The line may sit in a folded unchanged region until the diff is computed: reveal it once it is.
    const reveal = (): void => editor.getModifiedEditor().revealLinesInCenter(focus.lineStart, focus.lineEnd);
    reveal();
    const once = editor.onDidUpdateDiff(() => {
      reveal();
      once.dispose();
    });
    return () => once.dispose();
  }, [focus, onlyKind]);

  return (
    <div
      ref={host}
      className="monaco-diff changes-diff"
      data-path={path}
      data-one-sided={onlyKind ?? undefined}
      style={{ height: LINE_HEIGHT * 4 }}
    />
  );
}
