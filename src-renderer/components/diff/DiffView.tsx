// A diff of one file, shown in Monaco once Monaco has loaded (lazily, on first use); until then a
// plain placeholder of the same height keeps the layout still.
import { lazy, Suspense } from 'react';
import type { MonacoDiffProps } from './MonacoDiff';

const MonacoDiff = lazy(() => import('./MonacoDiff'));

export type DiffViewProps = MonacoDiffProps;

export function DiffView(props: DiffViewProps) {
  return (
    <Suspense
      fallback={
        <div className="monaco-diff monaco-diff--loading" aria-busy="true">
          Loading diff…
        </div>
      }
    >
      <MonacoDiff {...props} />
    </Suspense>
  );
}
