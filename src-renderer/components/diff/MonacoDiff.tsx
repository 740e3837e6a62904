// A read-only Monaco diff editor sized to its content (up to `maxHeight`), created and disposed by hand
// so that unmounting (which a virtualized list does all the time) releases the editor before its models.
// `zones` put React content between the lines of the modified side, each as tall as its content: the
// review's per-hunk controls sit right under their hunk. Monaco holds an empty view zone (a spacer) of the
// content's height; the content itself lives in a layer over the editor, outside Monaco's own DOM (which
// is hidden from screen readers and takes the mouse wheel), placed where Monaco draws the spacer.
import { useEffect, useRef, useState } from 'react';
import type { ReactNode } from 'react';
import { createPortal } from 'react-dom';
import { currentTheme, languageForPath, monaco } from './monaco';

export interface LineMark {
  side: 'original' | 'modified';
  /** 1-based, inclusive. */
  start: number;
  end: number;
  className: string;
}

/** Content shown between lines of the modified side. */
export interface DiffZone {
  key: string;
  /** The zone goes below this line of the modified side (1-based; 0 = above the first line). */
  afterLine: number;
  content: ReactNode;
}

interface ZoneEntry {
  id: string;
  afterLine: number;
  /** Where the zone's content is rendered, in the layer over the editor. */
  host: HTMLElement;
  observer: ResizeObserver;
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
  zones?: readonly DiffZone[];
  /** Line numbers to show instead of the models' own (index 0 = line 1; a missing entry shows none). */
  lineNumbers?: { original: readonly number[]; modified: readonly number[] };
}

const LINE_HEIGHT = 19;

export default function MonacoDiff(props: MonacoDiffProps) {
  const { original, modified, path, sideBySide, maxHeight, hideUnchanged, marks, reveal, label, zones, lineNumbers } = props;
  const host = useRef<HTMLDivElement>(null);
  const editorRef = useRef<monaco.editor.IStandaloneDiffEditor | null>(null);
  const modelsRef = useRef<{ original: monaco.editor.ITextModel; modified: monaco.editor.ITextModel } | null>(null);
  const marksRef = useRef<{ original: monaco.editor.IEditorDecorationsCollection; modified: monaco.editor.IEditorDecorationsCollection } | null>(null);
  const zoneEntries = useRef(new Map<string, ZoneEntry>());
  const layerRef = useRef<HTMLElement | null>(null);
  const placeZones = useRef<() => void>(() => undefined);
  const [zoneHosts, setZoneHosts] = useState<ReadonlyMap<string, HTMLElement>>(new Map());

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
    const layer = document.createElement('div');
    layer.className = 'diff-zone-layer';
    element.appendChild(layer);
    layerRef.current = layer;
    let frame = 0;
    const place = (): void => {
      frame = 0;
      const origin = layer.getBoundingClientRect();
      const target = editor.getModifiedEditor();
      const box = target.getDomNode()?.getBoundingClientRect();
      const layout = target.getLayoutInfo();
      const scrollTop = target.getScrollTop();
      for (const entry of zoneEntries.current.values()) {
        // Computed from the line rather than read from the spacer: Monaco leaves a spacer it has not
        // drawn since a layout change where it was, and it draws only the spacers in view.
        const hidden = box === undefined;
        entry.host.style.display = hidden ? 'none' : '';
        if (hidden) continue;
        const below = entry.afterLine > 0 ? target.getBottomForLineNumber(entry.afterLine) : 0;
        entry.host.style.top = `${box.top - origin.top + below - scrollTop}px`;
        entry.host.style.left = `${box.left - origin.left + layout.contentLeft}px`;
        entry.host.style.width = `${Math.max(0, layout.contentWidth - layout.verticalScrollbarWidth)}px`;
      }
    };
    placeZones.current = () => {
      if (frame === 0) frame = window.requestAnimationFrame(place);
    };
    modelsRef.current = models;
    marksRef.current = {
      original: editor.getOriginalEditor().createDecorationsCollection(),
      modified: editor.getModifiedEditor().createDecorationsCollection(),
    };

    const fit = (): void => {
      const height = Math.max(editor.getOriginalEditor().getContentHeight(), editor.getModifiedEditor().getContentHeight());
      element.style.height = `${Math.min(Math.max(height, LINE_HEIGHT * 2), maxHeight)}px`;
      // An editor as tall as its content never scrolls itself (Monaco may, while a zone above the top
      // line grows): the page around it does.
      if (height <= maxHeight) {
        for (const side of [editor.getOriginalEditor(), editor.getModifiedEditor()]) if (side.getScrollTop() !== 0) side.setScrollTop(0);
      }
    };
    const subscriptions = [
      editor.getModifiedEditor().onDidScrollChange(() => {
        fit();
        placeZones.current();
      }),
      editor.getModifiedEditor().onDidLayoutChange(() => placeZones.current()),
      editor.getOriginalEditor().onDidContentSizeChange(fit),
      editor.getModifiedEditor().onDidContentSizeChange(fit),
      editor.onDidUpdateDiff(fit),
    ];
    fit();
    return () => {
      for (const subscription of subscriptions) subscription.dispose();
      for (const entry of zoneEntries.current.values()) entry.observer.disconnect();
      zoneEntries.current.clear();
      if (frame !== 0) window.cancelAnimationFrame(frame);
      placeZones.current = () => undefined;
      layer.remove();
      layerRef.current = null;
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
    const editor = editorRef.current;
    if (editor === null) return;
    const numbering = (numbers: readonly number[] | undefined): monaco.editor.LineNumbersType =>
      numbers === undefined ? 'on' : (line: number) => (numbers[line - 1] === undefined ? '' : String(numbers[line - 1]));
    editor.getOriginalEditor().updateOptions({ lineNumbers: numbering(lineNumbers?.original) });
    editor.getModifiedEditor().updateOptions({ lineNumbers: numbering(lineNumbers?.modified) });
  }, [lineNumbers, path]);

  // Zones follow the lines they belong to: a zone whose line changed (or whose text was replaced) is
  // placed again. Each zone's height follows its content's.
  const zoneLines = (zones ?? []).map((zone) => `${zone.key}@${zone.afterLine}`).join('|');
  useEffect(() => {
    const editor = editorRef.current?.getModifiedEditor();
    if (editor === undefined) return;
    const entries = zoneEntries.current;
    const wanted = new Map((zones ?? []).map((zone) => [zone.key, zone.afterLine]));
    const layer = layerRef.current;
    if (layer === null) return;
    editor.changeViewZones((accessor) => {
      for (const [key, entry] of entries) {
        accessor.removeZone(entry.id);
        entry.observer.disconnect();
        entry.host.remove();
        entries.delete(key);
      }
      for (const [key, afterLine] of wanted) {
        const spacer = document.createElement('div');
        spacer.className = 'diff-zone';
        const host = document.createElement('div');
        host.className = 'diff-zone-content';
        layer.appendChild(host);
        const zone: monaco.editor.IViewZone = {
          afterLineNumber: afterLine,
          heightInPx: LINE_HEIGHT * 2,
          domNode: spacer,
          onDomNodeTop: () => placeZones.current(),
          onComputedHeight: () => placeZones.current(),
        };
        const id = accessor.addZone(zone);
        const observer = new ResizeObserver(() => {
          const height = Math.ceil(host.getBoundingClientRect().height);
          if (height === 0 || height === zone.heightInPx) return;
          zone.heightInPx = height;
          editor.changeViewZones((a) => a.layoutZone(id));
        });
        observer.observe(host);
        entries.set(key, { id, afterLine, host, observer });
      }
    });
    placeZones.current();
    setZoneHosts(new Map([...entries].map(([key, entry]) => [key, entry.host])));
    // `zones` content changes are rendered through the portals below; only their places matter here.
  }, [zoneLines, original, modified, path]);

  useEffect(() => {
    if (reveal === null || reveal === undefined) return;
    editorRef.current?.getModifiedEditor().revealLineInCenter(reveal.line);
  }, [reveal]);

  return (
    <div ref={host} className="monaco-diff" style={{ height: LINE_HEIGHT * 4 }}>
      {(zones ?? []).map((zone) => {
        const target = zoneHosts.get(zone.key);
        return target === undefined ? null : createPortal(zone.content, target, zone.key);
      })}
    </div>
  );
}
