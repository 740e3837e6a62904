// A command's kept output in a read-only Monaco editor (search, select, scroll), opened from a terminal
// cell whose output is too long to show whole. Loaded lazily with Monaco.
import { useEffect, useRef } from 'react';
import { currentTheme, monaco } from './diff/monaco';

/** Terminal control sequences (colours, cursor moves) do not belong in an editor. */
// eslint-disable-next-line no-control-regex -- matching escape sequences is the point
const ANSI = /\x1b\[[0-9;?]*[ -/]*[@-~]|\x1b\][^\x07]*\x07/g;

export default function OutputEditor({ text, label }: { text: string; label: string }) {
  const host = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const element = host.current;
    if (element === null) return;
    const model = monaco.editor.createModel(text.replace(ANSI, '').replace(/\r\n?/g, '\n'), 'plaintext');
    const editor = monaco.editor.create(element, {
      model,
      readOnly: true,
      theme: currentTheme(),
      fontSize: 12,
      minimap: { enabled: false },
      automaticLayout: true,
      scrollBeyondLastLine: false,
      ariaLabel: label,
      wordWrap: 'off',
    });
    editor.revealLine(model.getLineCount());
    return () => {
      editor.dispose();
      model.dispose();
    };
  }, [text, label]);
  return <div ref={host} className="output-editor" />;
}
