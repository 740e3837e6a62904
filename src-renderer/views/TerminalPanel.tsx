// The integrated terminal: the user's login shell in the project folder (on the project's environment for a
// remote one), outside the sandbox (the strip says so), in xterm.js, over `command/exec` (tty). Several tabs; the panel lives beside the conversation, so switching threads
// keeps it and its shells. xterm (and the shell) start only when the panel is first opened.
import { FitAddon } from '@xterm/addon-fit';
import { Terminal as XTerm } from '@xterm/xterm';
import '@xterm/xterm/css/xterm.css';
import { useEffect, useLayoutEffect, useRef, useState } from 'react';
import { Icon } from '../components/Icon';
import { useController } from '../store/app-context';
import { environmentParam, projectPlace } from '../store/project-key';
import { terminalEnd } from './terminal-end';

interface Tab {
  id: string;
  title: string;
  exited: number | null;
  /** The environment whose link dropped, ending the tab's shell there. */
  lost: string | null;
  /** The link to the shell's environment is down; the shell there waits to be taken over again. */
  reconnecting: boolean;
}

function toBase64(text: string): string {
  const bytes = new TextEncoder().encode(text);
  let binary = '';
  for (const b of bytes) binary += String.fromCharCode(b);
  return btoa(binary);
}

function fromBase64(data: string): Uint8Array {
  const binary = atob(data);
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return bytes;
}

/** Panels in this page: each panel's process ids start with its own number, so they never collide. */
let nextPanel = 1;

/** One shell: its xterm and its process, alive while the tab is open (hidden tabs keep running). */
function TerminalTab({
  tab,
  cwd,
  visible,
  onExit,
  onLink,
}: {
  tab: Tab;
  cwd: string;
  visible: boolean;
  onExit: (end: { code: number } | { lost: string }) => void;
  /** The link to the shell's environment went down (true) or came back (false). */
  onLink: (reconnecting: boolean) => void;
}) {
  const controller = useController();
  const host = useRef<HTMLDivElement>(null);
  const fitRef = useRef<FitAddon | null>(null);
  const xtermRef = useRef<XTerm | null>(null);
  const onExitRef = useRef(onExit);
  const onLinkRef = useRef(onLink);
  useLayoutEffect(() => {
    onExitRef.current = onExit;
    onLinkRef.current = onLink;
  });
  // One process per tab for the tab's life: it starts in the project's folder at the time the tab opened.
  const [startCwd] = useState(cwd);

  useEffect(() => {
    const element = host.current;
    if (element === null) return;
    const xterm = new XTerm({
      fontSize: 13,
      fontFamily: 'ui-monospace, "SF Mono", SFMono-Regular, Menlo, Consolas, "Liberation Mono", monospace',
      cursorBlink: true,
      scrollback: 5000,
      theme: window.matchMedia('(prefers-color-scheme: dark)').matches
        ? { background: '#141518', foreground: '#d5d7dd' }
        : { background: '#fbfbfc', foreground: '#24292f', cursor: '#24292f' },
    });
    const fit = new FitAddon();
    xterm.loadAddon(fit);
    xterm.open(element);
    fit.fit();
    xtermRef.current = xterm;
    fitRef.current = fit;
    const processId = tab.id;
    // A project on an environment: its shell runs there (every request of the tab names it).
    const where = environmentParam(startCwd);
    let started = false;
    let ended = false;
    let down = false;
    const stopOutput = controller.onNotification((n) => {
      if (n.method === 'command/exec/outputDelta' && n.params.processId === processId) {
        started = true;
        xterm.write(fromBase64(n.params.deltaBase64));
      }
      // The link to the shell's environment: while it is down the shell there goes on (a server that outlives
      // the link keeps it), and once it is back what the shell printed meanwhile follows.
      if (n.method === 'weft/environment/status' && n.params.environment === where.weftEnvironment && !ended) {
        const nowDown = n.params.state === 'reconnecting';
        if (nowDown === down || n.params.state === 'disconnected') return;
        down = nowDown;
        xterm.write(
          nowDown
            ? `\r\n\x1b[2m[Reconnecting to ${n.params.environment}…]\x1b[0m\r\n`
            : `\x1b[2m[Reconnected to ${n.params.environment}]\x1b[0m\r\n`,
        );
        onLinkRef.current(nowDown);
      }
    });
    const input = xterm.onData(
      (data) =>
        void controller
          .request('command/exec/write', { processId, deltaBase64: toBase64(data), ...where })
          .catch(() => undefined),
    );
    const resize = xterm.onResize(
      ({ cols, rows }) =>
        void controller
          .request('command/exec/resize', { processId, size: { cols, rows }, ...where })
          .catch(() => undefined),
    );
    let alive = true;
    controller
      .request('command/exec', {
        command: ['/bin/sh', '-c', 'exec "${SHELL:-/bin/bash}" -l'],
        cwd: projectPlace(startCwd).folder,
        ...where,
        processId,
        tty: true,
        size: { cols: xterm.cols, rows: xterm.rows },
        // The user's own terminal: their shell, not the agent's sandbox.
        sandboxPolicy: { type: 'dangerFullAccess' },
      })
      .finally(() => {
        ended = true;
        if (down && alive) onLinkRef.current(false);
      })
      .then(
        (r) => {
          xterm.write(`\r\n\x1b[2m[process exited with code ${r.exitCode}]\x1b[0m\r\n`);
          if (alive) onExitRef.current({ code: r.exitCode });
        },
        (e: unknown) => {
          const end = terminalEnd(e, started);
          xterm.write(`\r\n\x1b[31m${end.text}\x1b[0m\r\n`);
          if (alive && end.linkDropped !== null) onExitRef.current({ lost: end.linkDropped });
        },
      );
    const observer = new ResizeObserver(() => {
      if (element.offsetParent !== null) fit.fit();
    });
    observer.observe(element);
    return () => {
      alive = false;
      observer.disconnect();
      stopOutput();
      input.dispose();
      resize.dispose();
      void controller.request('command/exec/terminate', { processId, ...where }).catch(() => undefined);
      xterm.dispose();
    };
  }, [tab.id, controller, startCwd]);

  useEffect(() => {
    if (!visible) return;
    fitRef.current?.fit();
    xtermRef.current?.focus();
  }, [visible]);

  return <div ref={host} className="terminal-panel-host" hidden={!visible} data-terminal={tab.id} />;
}

export function TerminalPanel({ cwd, open, onClose }: { cwd: string; open: boolean; onClose: () => void }) {
  const [panel] = useState(() => nextPanel++);
  // A tab's shell runs where the project shown when it opened is: on an environment, the title names it.
  const tabNumbered = (n: number): Tab => {
    const { environment } = projectPlace(cwd);
    const title = environment === null ? `Terminal ${n}` : `Terminal ${n} · ${environment}`;
    return { id: `terminal-${panel}-${n}`, title, exited: null, lost: null, reconnecting: false };
  };
  const [tabs, setTabs] = useState<Tab[]>(() => [tabNumbered(1)]);
  const [active, setActive] = useState<string | null>(tabs[0]?.id ?? null);
  const [nextNumber, setNextNumber] = useState(2);
  const add = (): void => {
    const tab = tabNumbered(nextNumber);
    setNextNumber(nextNumber + 1);
    setTabs((list) => [...list, tab]);
    setActive(tab.id);
  };
  const close = (id: string): void => {
    setTabs((list) => {
      const rest = list.filter((t) => t.id !== id);
      if (active === id) setActive(rest[rest.length - 1]?.id ?? null);
      if (rest.length === 0) onClose();
      return rest;
    });
  };
  // Reopening an emptied panel starts a fresh shell.
  const [wasOpen, setWasOpen] = useState(open);
  if (wasOpen !== open) {
    setWasOpen(open);
    if (open && tabs.length === 0) add();
  }
  return (
    <section className="terminal-panel" aria-label="Terminal" hidden={!open}>
      <div className="terminal-tabs" role="tablist" aria-label="Terminals">
        {tabs.map((t) => (
          <div key={t.id} className={`terminal-tab ${t.id === active ? 'is-active' : ''}`}>
            <button type="button" role="tab" aria-selected={t.id === active} onClick={() => setActive(t.id)}>
              {t.title}
              {t.exited !== null ? ` (exited ${t.exited})` : ''}
              {t.lost !== null ? ' (link dropped)' : ''}
              {t.reconnecting ? ' (reconnecting…)' : ''}
            </button>
            <button type="button" className="icon-button" aria-label={`Close ${t.title}`} onClick={() => close(t.id)}>
              <Icon name="x" size={12} />
            </button>
          </div>
        ))}
        <button type="button" className="icon-button" aria-label="New terminal" title="New terminal" onClick={add}>
          <Icon name="plus" size={14} />
        </button>
        <span className="spacer" />
        <span
          className="terminal-note"
          role="note"
          title="Commands typed here are not sandboxed: they run with your rights."
        >
          Your login shell, outside the sandbox
        </span>
        <button
          type="button"
          className="icon-button"
          aria-label="Hide terminal"
          title="Hide terminal (Ctrl+`)"
          onClick={onClose}
        >
          <Icon name="chevronDown" size={14} />
        </button>
      </div>
      <div className="terminal-body">
        {tabs.map((t) => (
          <TerminalTab
            key={t.id}
            tab={t}
            cwd={cwd}
            visible={open && t.id === active}
            onExit={(end) =>
              setTabs((list) =>
                list.map((x) =>
                  x.id !== t.id ? x : 'code' in end ? { ...x, exited: end.code } : { ...x, lost: end.lost },
                ),
              )
            }
            onLink={(reconnecting) => setTabs((list) => list.map((x) => (x.id !== t.id ? x : { ...x, reconnecting })))}
          />
        ))}
      </div>
    </section>
  );
}
