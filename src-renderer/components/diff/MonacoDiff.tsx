// A read-only Monaco diff editor sized to its content (up to `maxHeight`), created and disposed by hand
// so that unmounting (which a virtualized list does all the time) releases the editor before its models.
import { useEffect, useRef } from 'react';
import { currentTheme, languageForPath, monaco } from './monaco';

export interface LineMark {
  side: 'original' | 'modified';
  /** 1-based, inclusive. */
  start: number;
  end: number;
  className: string;
}

export interface MonacoDiffProps {
  original: string;
  modified: string;
  /** The file's path: picks the language. */
  path: string;
  sideBySide: boolean;
  maxHeight: number;
  /** Fold runs of unchanged lines (for diffs rebuilt from hunks, whose gaps are blank). */
  hideUnchanged: boolean;
  marks?: readonly LineMark[];
  /** Scroll the modified side to this line; `nonce` lets the same line be revealed again. */
  reveal?: { line: number; nonce: number } | null;
  label: string;
}

const LINE_HEIGHT = 19;

export default function MonacoDiff(props: MonacoDiffProps) {
  const { original, modified, path, sideBySide, maxHeight, hideUnchanged, marks, reveal, label } = props;
  const host = useRef<HTMLDivElement>(null);
  const editorRef = useRef<monaco.editor.IStandaloneDiffEditor | null>(null);
  const modelsRef = useRef<{ original: monaco.editor.ITextModel; modified: monaco.editor.ITextModel } | null>(null);
  const marksRef = useRef<{ original: monaco.editor.IEditorDecorationsCollection; modified: monaco.editor.IEditorDecorationsCollection } | null>(null);

  useEffect(() => {
    const element = host.current;
    if (element === null) return;
    const language = languageForPath(path);
    const models = {
      original: monaco.editor.createModel(original, language),
      modified: monaco.editor.createModel(modified, language),
    };
    const editor = monaco.editor.createDiffEditor(element, {
      readOnly: true,
      originalEditable: false,
      renderSideBySide: sideBySide,
      useInlineViewWhenSpaceIsLimited: true,
      renderSideBySideInlineBreakpoint: 640,
      automaticLayout: true,
      theme: currentTheme(),
      fontSize: 12,
      lineHeight: LINE_HEIGHT,
      fontFamily: 'ui-monospace, "SF Mono", SFMono-Regular, Menlo, Consolas, "Liberation Mono", monospace',
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
      hideUnchangedRegions: { enabled: hideUnchanged, contextLineCount: 3, minimumLineCount: 4, revealLineCount: 20 },
      diffAlgorithm: 'advanced',
      ariaLabel: label,
    });
    editor.setModel(models);
    editorRef.current = editor;
    modelsRef.current = models;
    marksRef.current = {
      original: editor.getOriginalEditor().createDecorationsCollection(),
      modified: editor.getModifiedEditor().createDecorationsCollection(),
    };

    const fit = (): void => {
      const height = Math.max(editor.getOriginalEditor().getContentHeight(), editor.getModifiedEditor().getContentHeight());
      element.style.height = `${Math.min(Math.max(height, LINE_HEIGHT * 2), maxHeight)}px`;
    };
    const subscriptions = [
      editor.getOriginalEditor().onDidContentSizeChange(fit),
      editor.getModifiedEditor().onDidContentSizeChange(fit),
      editor.onDidUpdateDiff(fit),
    ];
    fit();
    return () => {
      for (const subscription of subscriptions) subscription.dispose();
      marksRef.current = null;
      editorRef.current = null;
      modelsRef.current = null;
      editor.setModel(null);
      editor.dispose();
      models.original.dispose();
      models.modified.dispose();
    };
    // The editor is rebuilt only when the file changes; text and options are updated in place below.
  }, [path]);

  useEffect(() => {
    const models = modelsRef.current;
    if (models === null) return;
    if (models.original.getValue() !== original) models.original.setValue(original);
    if (models.modified.getValue() !== modified) models.modified.setValue(modified);
  }, [original, modified]);

  useEffect(() => {
    editorRef.current?.updateOptions({
      renderSideBySide: sideBySide,
      hideUnchangedRegions: { enabled: hideUnchanged },
    });
  }, [sideBySide, hideUnchanged]);

  useEffect(() => {
    const collections = marksRef.current;
    if (collections === null) return;
    const toDecorations = (side: LineMark['side']): monaco.editor.IModelDeltaDecoration[] =>
      (marks ?? [])
        .filter((mark) => mark.side === side)
        .map((mark) => ({
          range: new monaco.Range(mark.start, 1, mark.end, 1),
          options: { isWholeLine: true, className: mark.className, linesDecorationsClassName: `${mark.className}-gutter` },
        }));
    collections.original.set(toDecorations('original'));
    collections.modified.set(toDecorations('modified'));
  }, [marks, original, modified]);

  useEffect(() => {
    if (reveal === null || reveal === undefined) return;
    editorRef.current?.getModifiedEditor().revealLineInCenter(reveal.line);
  }, [reveal]);

  return <div ref={host} className="monaco-diff" style={{ height: LINE_HEIGHT * 4 }} />;
}
