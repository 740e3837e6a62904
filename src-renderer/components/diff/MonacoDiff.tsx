// A read-only Monaco diff editor sized to its content (up to `maxHeight`), created and disposed by hand
// so that unmounting (which a virtualized list does all the time) releases the editor before its models.
// `zones` put React content between the lines of the modified side, each as tall as its content: the
// review's per-hunk controls sit right under their hunk. Monaco holds an empty view zone (a spacer) of the
// content's height; the content itself lives in a layer over the editor, outside Monaco's own DOM (which
// is hidden from screen readers and takes the mouse wheel), placed where Monaco draws the spacer, across
// both sides when they stand side by side. A diff with one empty side (a new or deleted file) is a plain
// read-only editor of the other side, every line marked added or removed (see `one-sided.ts`).
import { useEffect, useLayoutEffect, useRef, useState } from 'react';
import type { ReactNode } from 'react';
import { createPortal } from 'react-dom';
import { currentTheme, languageForPath, monaco, wholeSideMarks } from './monaco';
import { diffRows, lineCount } from './diff-rows';
import { oneSided } from './one-sided';
import { whenNear } from '../when-near';
import { widgetQueue } from '../widget-queue';
import type { OneSidedKind } from './one-sided';

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
  /** Where it goes when only the original side is shown (a deleted file); `afterLine` when absent. */
  afterOriginalLine?: number;
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
  /** A click on a line number (to comment on that line). */
  onLineClick?: (side: 'original' | 'modified', line: number) => void;
}

const LINE_HEIGHT = 19;
/** Unchanged lines shown on each side of a change when unchanged regions are folded. */
const CONTEXT_LINES = 3;
/** Narrower than this, a side-by-side diff is shown inline (Monaco's breakpoint, set below). */
const SIDE_BY_SIDE_MIN_WIDTH = 640;

/** The element's height for content of `contentPx`: at least two lines, at most `maxHeight` (then it scrolls). */
function heightFor(contentPx: number, maxHeight: number): number {
  return Math.min(Math.max(contentPx, LINE_HEIGHT * 2), maxHeight);
}

/** The editors of one view: a diff editor, or a single editor for a one-sided diff. */
interface Views {
  diff: monaco.editor.IStandaloneDiffEditor | null;
  /** The editor zones, reveals and the shown side's marks go to: the modified side, or the only one. */
  main: monaco.editor.ICodeEditor;
  /** Which side the single editor shows; null for a diff editor. */
  only: OneSidedKind | null;
  editors: monaco.editor.ICodeEditor[];
  models: monaco.editor.ITextModel[];
}

/** Options the diff editor and the single editor share. */
function commonOptions(label: string): monaco.editor.IEditorOptions & monaco.editor.IGlobalEditorOptions {
  return {
    readOnly: true,
    automaticLayout: true,
    theme: currentTheme(),
    fontSize: 12,
    lineHeight: LINE_HEIGHT,
    fontFamily: 'ui-monospace, "SF Mono", SFMono-Regular, Menlo, Consolas, "Liberation Mono", monospace',
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
}

/**
 * Makes one small read-only editor off screen and disposes of it: the first editor of a page pays
 * Monaco's one-time set-up (its services, the theme's styles, measuring the font). Beside eight busy
 * agents the first diff editor of a page took 0.55–0.66 s of main thread and each later one about 0.1 s;
 * after this warm-up the first took 0.2–0.3 s. Run while the page is idle, so that the first diff a person
 * opens, or that streams into the open thread, does not pay it. A diff editor here would also start the
 * diff worker, for 0.3–0.4 s more CPU in every page, whether it ever shows a diff or not.
 */
export function warmUpEditor(doc: Document): void {
  const element = doc.createElement('div');
  element.setAttribute('aria-hidden', 'true');
  element.inert = true;
  element.style.cssText = 'position:fixed;left:-10000px;top:0;width:480px;height:120px;';
  doc.body.appendChild(element);
  const model = monaco.editor.createModel('one\ntwo\n', 'plaintext');
  const editor = monaco.editor.create(element, { ...commonOptions('warm-up'), model });
  editor.dispose();
  model.dispose();
  element.remove();
}

/** The line a zone follows: in a removed file's one-sided view, its line on the original side. */
function zoneLine(zone: DiffZone, onlyKind: OneSidedKind | null): number {
  return onlyKind === 'removed' ? (zone.afterOriginalLine ?? zone.afterLine) : zone.afterLine;
}

export default function MonacoDiff(props: MonacoDiffProps) {
  const { original, modified, path, sideBySide, maxHeight, hideUnchanged, marks, reveal, label, zones, lineNumbers } =
    props;
  const clickRef = useRef(props.onLineClick);
  const host = useRef<HTMLDivElement>(null);
  const viewsRef = useRef<Views | null>(null);
  const marksRef = useRef<{
    original: monaco.editor.IEditorDecorationsCollection | null;
    modified: monaco.editor.IEditorDecorationsCollection | null;
    whole: monaco.editor.IEditorDecorationsCollection | null;
  } | null>(null);
  const zoneEntries = useRef(new Map<string, ZoneEntry>());
  const layerRef = useRef<HTMLElement | null>(null);
  const placeZones = useRef<() => void>(() => undefined);
  const [zoneHosts, setZoneHosts] = useState<ReadonlyMap<string, HTMLElement>>(new Map());
  const only = oneSided(original, modified);
  const onlyKind = only?.kind ?? null;
  // The props as of the last render, for the effects that build the editor or place the zones: they read
  // them without being re-run by them (text and options are updated in place by the effects below).
  const latest = useRef({ original, modified, label, sideBySide, hideUnchanged, maxHeight, zones });
  useLayoutEffect(() => {
    latest.current = { original, modified, label, sideBySide, hideUnchanged, maxHeight, zones };
    clickRef.current = props.onLineClick;
  });

  // Until the editor is made, its place is held at the height it will take (diff-rows.ts): the page does
  // not jump when it comes. Zones are counted a line each (a fold marker's height).
  const zoneCount = zones?.length ?? 0;
  const onlyText = only?.text ?? null;
  useLayoutEffect(() => {
    const element = host.current;
    if (element === null || viewsRef.current !== null) return;
    const rows =
      onlyText === null
        ? diffRows(
            original,
            modified,
            !sideBySide || element.clientWidth < SIDE_BY_SIDE_MIN_WIDTH,
            hideUnchanged ? { contextLines: CONTEXT_LINES } : null,
          )
        : lineCount(onlyText);
    element.style.height = `${heightFor((rows + zoneCount) * LINE_HEIGHT, maxHeight)}px`;
  }, [original, modified, onlyText, sideBySide, hideUnchanged, maxHeight, zoneCount]);

  // Made after the frame that shows its place, one widget per frame (widget-queue.ts), once that place is
  // within a screenful of the view (when-near.ts); `made` counts the editors made, so that the effects below
  // apply what they hold to each new one.
  const [made, setMade] = useState(0);
  useEffect(() => {
    const element = host.current;
    if (element === null) return;
    const build = (): (() => void) => {
      const entries = zoneEntries.current;
      const { original, modified, label, sideBySide, hideUnchanged } = latest.current;
      const language = languageForPath(path);
      let views: Views;
      if (onlyKind === null) {
        const models = {
          original: monaco.editor.createModel(original, language),
          modified: monaco.editor.createModel(modified, language),
        };
        const diff = monaco.editor.createDiffEditor(element, {
          ...commonOptions(label),
          originalEditable: false,
          renderSideBySide: sideBySide,
          useInlineViewWhenSpaceIsLimited: true,
          renderSideBySideInlineBreakpoint: SIDE_BY_SIDE_MIN_WIDTH,
          renderOverviewRuler: false,
          hideUnchangedRegions: {
            enabled: hideUnchanged,
            contextLineCount: CONTEXT_LINES,
            minimumLineCount: 4,
            revealLineCount: 20,
          },
          diffAlgorithm: 'advanced',
        });
        diff.setModel(models);
        views = {
          diff,
          main: diff.getModifiedEditor(),
          only: null,
          editors: [diff.getOriginalEditor(), diff.getModifiedEditor()],
          models: [models.original, models.modified],
        };
        marksRef.current = {
          original: diff.getOriginalEditor().createDecorationsCollection(),
          modified: diff.getModifiedEditor().createDecorationsCollection(),
          whole: null,
        };
      } else {
        const model = monaco.editor.createModel(oneSided(original, modified)?.text ?? '', language);
        const editor = monaco.editor.create(element, { ...commonOptions(label), model, lineDecorationsWidth: 14 });
        views = { diff: null, main: editor, only: onlyKind, editors: [editor], models: [model] };
        const shown = editor.createDecorationsCollection();
        marksRef.current = {
          original: onlyKind === 'removed' ? shown : null,
          modified: onlyKind === 'added' ? shown : null,
          whole: editor.createDecorationsCollection(wholeSideMarks(model, onlyKind)),
        };
      }
      viewsRef.current = views;
      const layer = document.createElement('div');
      layer.className = 'diff-zone-layer';
      element.appendChild(layer);
      layerRef.current = layer;
      let frame = 0;
      const place = (): void => {
        frame = 0;
        const origin = layer.getBoundingClientRect();
        const target = views.main;
        const box = target.getDomNode()?.getBoundingClientRect();
        const layout = target.getLayoutInfo();
        const scrollTop = target.getScrollTop();
        // Side by side, a zone spans both sides: the original side only has an empty filler there.
        const left = views.diff?.getOriginalEditor();
        const leftBox = left?.getDomNode()?.getBoundingClientRect();
        const split = box !== undefined && leftBox !== undefined && leftBox.width > 0 && leftBox.right <= box.left + 1;
        for (const entry of zoneEntries.current.values()) {
          // Computed from the line rather than read from the spacer: Monaco leaves a spacer it has not
          // drawn since a layout change where it was, and it draws only the spacers in view.
          const hidden = box === undefined;
          entry.host.style.display = hidden ? 'none' : '';
          if (hidden) continue;
          const below = entry.afterLine > 0 ? target.getBottomForLineNumber(entry.afterLine) : 0;
          const start =
            split && left !== undefined
              ? leftBox.left + left.getLayoutInfo().contentLeft
              : box.left + layout.contentLeft;
          const end = box.left + layout.contentLeft + Math.max(0, layout.contentWidth - layout.verticalScrollbarWidth);
          entry.host.style.top = `${box.top - origin.top + below - scrollTop}px`;
          entry.host.style.left = `${start - origin.left}px`;
          entry.host.style.width = `${Math.max(0, end - start)}px`;
        }
      };
      placeZones.current = () => {
        if (frame === 0) frame = window.requestAnimationFrame(place);
      };

      const fit = (): void => {
        const height = Math.max(...views.editors.map((editor) => editor.getContentHeight()));
        const { maxHeight } = latest.current;
        element.style.height = `${heightFor(height, maxHeight)}px`;
        // An editor as tall as its content never scrolls itself (Monaco may, while a zone above the top
        // line grows): the page around it does.
        if (height <= maxHeight) {
          for (const side of views.editors) if (side.getScrollTop() !== 0) side.setScrollTop(0);
        }
      };
      const onMouse = (side: 'original' | 'modified') => (e: monaco.editor.IEditorMouseEvent) => {
        const type = e.target.type;
        const gutter =
          type === monaco.editor.MouseTargetType.GUTTER_LINE_NUMBERS ||
          type === monaco.editor.MouseTargetType.GUTTER_LINE_DECORATIONS;
        const line = e.target.position?.lineNumber;
        if (gutter && line !== undefined) clickRef.current?.(side, line);
      };
      const sides: ['original' | 'modified', monaco.editor.ICodeEditor][] =
        views.diff === null
          ? [[onlyKind === 'removed' ? 'original' : 'modified', views.main]]
          : [
              ['original', views.diff.getOriginalEditor()],
              ['modified', views.diff.getModifiedEditor()],
            ];
      const subscriptions = [
        ...sides.map(([side, editor]) => editor.onMouseDown(onMouse(side))),
        views.main.onDidScrollChange(() => {
          fit();
          placeZones.current();
        }),
        views.main.onDidLayoutChange(() => placeZones.current()),
        ...views.editors.map((editor) => editor.onDidContentSizeChange(fit)),
        ...(views.diff === null ? [] : [views.diff.onDidUpdateDiff(fit)]),
      ];
      fit();
      return () => {
        for (const subscription of subscriptions) subscription.dispose();
        for (const entry of entries.values()) entry.observer.disconnect();
        entries.clear();
        if (frame !== 0) window.cancelAnimationFrame(frame);
        placeZones.current = () => undefined;
        layer.remove();
        layerRef.current = null;
        marksRef.current = null;
        viewsRef.current = null;
        if (views.diff !== null) {
          views.diff.setModel(null);
          views.diff.dispose();
        } else {
          for (const editor of views.editors) editor.dispose();
        }
        for (const model of views.models) model.dispose();
      };
    };
    let teardown: (() => void) | null = null;
    let cancel: () => void = () => undefined;
    // Queued once its place comes near the view (when-near.ts), and kept once made.
    const stopWaiting = whenNear(element, () => {
      cancel = widgetQueue().make(() => {
        teardown = build();
        setMade((count) => count + 1);
      });
    });
    return () => {
      stopWaiting();
      cancel();
      teardown?.();
    };
    // The editor is rebuilt only when the file changes or a side becomes (or stops being) empty; text
    // and options are updated in place below.
  }, [path, onlyKind]);

  useEffect(() => {
    const views = viewsRef.current;
    if (views === null) return;
    if (views.only === null) {
      const [left, right] = views.models;
      if (left !== undefined && left.getValue() !== original) left.setValue(original);
      if (right !== undefined && right.getValue() !== modified) right.setValue(modified);
      return;
    }
    const model = views.models[0];
    const text = oneSided(original, modified)?.text;
    if (model === undefined || text === undefined || model.getValue() === text) return;
    model.setValue(text);
    marksRef.current?.whole?.set(wholeSideMarks(model, views.only));
  }, [original, modified, made]);

  useEffect(() => {
    viewsRef.current?.diff?.updateOptions({
      renderSideBySide: sideBySide,
      hideUnchangedRegions: { enabled: hideUnchanged },
    });
  }, [sideBySide, hideUnchanged, made]);

  useEffect(() => {
    const collections = marksRef.current;
    if (collections === null) return;
    const toDecorations = (side: LineMark['side']): monaco.editor.IModelDeltaDecoration[] =>
      (marks ?? [])
        .filter((mark) => mark.side === side)
        .map((mark) => ({
          range: new monaco.Range(mark.start, 1, mark.end, 1),
          options: {
            isWholeLine: true,
            className: mark.className,
            linesDecorationsClassName: `${mark.className}-gutter`,
          },
        }));
    collections.original?.set(toDecorations('original'));
    collections.modified?.set(toDecorations('modified'));
  }, [marks, original, modified, onlyKind, made]);

  useEffect(() => {
    const views = viewsRef.current;
    if (views === null) return;
    const numbering = (numbers: readonly number[] | undefined): monaco.editor.LineNumbersType =>
      numbers === undefined
        ? 'on'
        : (line: number) => (numbers[line - 1] === undefined ? '' : String(numbers[line - 1]));
    if (views.diff !== null) {
      views.diff.getOriginalEditor().updateOptions({ lineNumbers: numbering(lineNumbers?.original) });
      views.diff.getModifiedEditor().updateOptions({ lineNumbers: numbering(lineNumbers?.modified) });
    } else {
      views.main.updateOptions({
        lineNumbers: numbering(views.only === 'removed' ? lineNumbers?.original : lineNumbers?.modified),
      });
    }
  }, [lineNumbers, path, onlyKind, made]);

  // Zones follow the lines they belong to: a zone whose line changed (or whose text was replaced) is
  // placed again. Each zone's height follows its content's.
  const zoneLines = (zones ?? []).map((zone) => `${zone.key}@${zoneLine(zone, onlyKind)}`).join('|');
  useEffect(() => {
    const editor = viewsRef.current?.main;
    if (editor === undefined) return;
    const entries = zoneEntries.current;
    const wanted = new Map((latest.current.zones ?? []).map((zone) => [zone.key, zoneLine(zone, onlyKind)]));
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
  }, [zoneLines, original, modified, path, onlyKind, made]);

  useEffect(() => {
    if (reveal === null || reveal === undefined) return;
    viewsRef.current?.main.revealLineInCenter(reveal.line);
  }, [reveal, made]);

  return (
    <div ref={host} className="monaco-diff" data-one-sided={onlyKind ?? undefined} style={{ height: LINE_HEIGHT * 4 }}>
      {(zones ?? []).map((zone) => {
        const target = zoneHosts.get(zone.key);
        return target === undefined ? null : createPortal(zone.content, target, zone.key);
      })}
    </div>
  );
}
