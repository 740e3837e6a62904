// The OS colour scheme, live.
import { useSyncExternalStore } from 'react';

const query = (): MediaQueryList => window.matchMedia('(prefers-color-scheme: dark)');

function subscribe(onChange: () => void): () => void {
  const list = query();
  list.addEventListener('change', onChange);
  return () => list.removeEventListener('change', onChange);
}

export function useColorScheme(): 'light' | 'dark' {
  return useSyncExternalStore(subscribe, () => (query().matches ? 'dark' : 'light'));
}
