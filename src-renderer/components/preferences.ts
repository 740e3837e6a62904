// Small view preferences kept across reloads (localStorage) and shared live between components.
import { useCallback, useSyncExternalStore } from 'react';

type Listener = () => void;
const listeners = new Set<Listener>();
const memory = new Map<string, string>();

function read(key: string): string | null {
  if (memory.has(key)) return memory.get(key) ?? null;
  try {
    return window.localStorage.getItem(key);
  } catch {
    return null;
  }
}

function write(key: string, value: string): void {
  memory.set(key, value);
  try {
    window.localStorage.setItem(key, value);
  } catch {
    // Storage disabled: the value lives for this page only.
  }
  for (const listener of [...listeners]) listener();
}

function subscribe(listener: Listener): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

/** A string preference with a fixed set of values. */
export function usePreference<T extends string>(
  key: string,
  values: readonly T[],
  fallback: T,
): [T, (value: T) => void] {
  const raw = useSyncExternalStore(subscribe, () => read(key));
  const value = values.find((v) => v === raw) ?? fallback;
  const set = useCallback((next: T) => write(key, next), [key]);
  return [value, set];
}

export type DiffLayout = 'inline' | 'split';
export const DIFF_LAYOUTS: readonly DiffLayout[] = ['inline', 'split'];

export function useDiffLayout(): [DiffLayout, (value: DiffLayout) => void] {
  return usePreference('weft.diffLayout', DIFF_LAYOUTS, 'split');
}

const disclosure = new Map<string, boolean>();

/**
 * Open/closed state of a collapsible part of a row, kept outside React so that it survives the row being
 * unmounted and remounted by the virtual list.
 */
export function useDisclosure(key: string, initial: boolean): [boolean, (open: boolean) => void] {
  // The first state shown sticks: a command open while it ran stays open when a later turn starts.
  if (!disclosure.has(key)) disclosure.set(key, initial);
  const open = useSyncExternalStore(subscribe, () => disclosure.get(key) ?? initial);
  const set = useCallback(
    (value: boolean) => {
      disclosure.set(key, value);
      for (const listener of [...listeners]) listener();
    },
    [key],
  );
  return [open, set];
}
