// The terminal parser behind command output is loaded on first use (the first output shown), keeping it
// out of the first paint.
import { lazy, Suspense } from 'react';
import type { CommandOutputProps } from './CommandOutput';

const CommandOutput = lazy(() => import('./CommandOutput').then((m) => ({ default: m.CommandOutput })));

export function LazyCommandOutput(props: CommandOutputProps) {
  return (
    <Suspense fallback={<div className="output-terminal terminal-loading" aria-busy="true" />}>
      <CommandOutput {...props} />
    </Suspense>
  );
}
