// xterm.js is loaded on first use (the first command output shown), keeping it out of the first paint.
import { lazy, Suspense } from 'react';
import type { TerminalProps } from './Terminal';

const Terminal = lazy(() => import('./Terminal').then((m) => ({ default: m.Terminal })));

export function LazyTerminal(props: TerminalProps) {
  return (
    <Suspense fallback={<div className="output-terminal terminal-loading" aria-busy="true" />}>
      <Terminal {...props} />
    </Suspense>
  );
}
