// A read-only Monaco diff where clicking a line number starts a comment on that line, comments show as
// marked lines, and a given line range can be revealed and highlighted (a review finding).
import { useEffect, useRef } from 'react';
import { currentTheme, languageForPath, monaco } from '../../components/diff/monaco';

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
  const marks = useRef<monaco.editor.IEditorDecorationsCollection | null>(null);
  const clickRef = useRef(onLineClick);
  clickRef.current = onLineClick;

  useEffect(() => {
    const element = host.current;
    if (element === null) return;
    const language = languageForPath(path);
    const models = { original: monaco.editor.createModel(original, language), modified: monaco.editor.createModel(modified, language) };
    const editor = monaco.editor.createDiffEditor(element, {
      readOnly: true,
      originalEditable: false,
      renderSideBySide: sideBySide,
      useInlineViewWhenSpaceIsLimited: true,
      renderSideBySideInlineBreakpoint: 560,
      automaticLayout: true,
      theme: currentTheme(),
      fontSize: 12,
      lineHeight: LINE_HEIGHT,
      minimap: { enabled: false },
      renderOverviewRuler: false,
      scrollBeyondLastLine: false,
      lineNumbersMinChars: 3,
      glyphMargin: false,
      folding: false,
      contextmenu: false,
      stickyScroll: { enabled: false },
      renderLineHighlight: 'none',
      scrollbar: { alwaysConsumeMouseWheel: false, verticalScrollbarSize: 10, horizontalScrollbarSize: 10, useShadows: false },
      hideUnchangedRegions: { enabled: true, contextLineCount: 3, minimumLineCount: 4, revealLineCount: 20 },
      ariaLabel: label,
    });
    editor.setModel(models);
    editorRef.current = editor;
    marks.current = editor.getModifiedEditor().createDecorationsCollection();
    const fit = (): void => {
      const height = Math.max(editor.getOriginalEditor().getContentHeight(), editor.getModifiedEditor().getContentHeight());
      element.style.height = `${Math.min(Math.max(height, LINE_HEIGHT * 2), MAX_HEIGHT)}px`;
    };
    const onMouse = (side: 'original' | 'modified') => (e: monaco.editor.IEditorMouseEvent) => {
      const type = e.target.type;
      if (type !== monaco.editor.MouseTargetType.GUTTER_LINE_NUMBERS && type !== monaco.editor.MouseTargetType.GUTTER_LINE_DECORATIONS) return;
      const line = e.target.position?.lineNumber;
      if (line !== undefined) clickRef.current(side, line);
    };
    const subscriptions = [
      editor.getOriginalEditor().onDidContentSizeChange(fit),
      editor.getModifiedEditor().onDidContentSizeChange(fit),
      editor.onDidUpdateDiff(fit),
      editor.getModifiedEditor().onMouseDown(onMouse('modified')),
      editor.getOriginalEditor().onMouseDown(onMouse('original')),
    ];
    fit();
    return () => {
      for (const s of subscriptions) s.dispose();
      marks.current = null;
      editorRef.current = null;
      editor.setModel(null);
      editor.dispose();
      models.original.dispose();
      models.modified.dispose();
    };
    // Rebuilt when the file changes; text is updated in place below.
  }, [path]);

  useEffect(() => {
    const models = editorRef.current?.getModel();
    if (!models) return;
    if (models.original.getValue() !== original) models.original.setValue(original);
    if (models.modified.getValue() !== modified) models.modified.setValue(modified);
  }, [original, modified]);

  useEffect(() => {
    editorRef.current?.updateOptions({ renderSideBySide: sideBySide });
  }, [sideBySide]);

  useEffect(() => {
    const decorations: monaco.editor.IModelDeltaDecoration[] = commented.map((line) => ({
      range: new monaco.Range(line, 1, line, 1),
      options: { isWholeLine: true, className: 'diff-commented', linesDecorationsClassName: 'diff-commented-gutter' },
    }));
    if (focus !== null) {
      decorations.push({ range: new monaco.Range(focus.lineStart, 1, focus.lineEnd, 1), options: { isWholeLine: true, className: 'diff-focus', linesDecorationsClassName: 'diff-focus-gutter' } });
    }
    marks.current?.set(decorations);
  }, [commented, focus, original, modified]);

  useEffect(() => {
    if (focus === null) return;
    const editor = editorRef.current;
    if (editor === null) return;
    // The line may sit in a folded unchanged region until the diff is computed: reveal it once it is.
    const reveal = (): void => editor.getModifiedEditor().revealLinesInCenter(focus.lineStart, focus.lineEnd);
    reveal();
    const once = editor.onDidUpdateDiff(() => {
      reveal();
      once.dispose();
    });
    return () => once.dispose();
  }, [focus]);

  return <div ref={host} className="monaco-diff changes-diff" data-path={path} style={{ height: LINE_HEIGHT * 4 }} />;
}
