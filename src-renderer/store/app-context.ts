// What every view reaches through React context: the store and the controller.
import { createContext, useContext } from 'react';
import { useStore } from 'zustand';
import type { Controller } from './controller';
import type { AppStore, StoreState } from './store';

export interface AppContextValue {
  store: AppStore;
  controller: Controller;
  /**
   * The desktop app opens each project in its own window: `openProject(path)` opens (or focuses) that
   * window, `openProject(null)` asks with the native folder dialog. Null in a browser, where this page
   * switches its own project instead.
   */
  desktop: { openProject(path: string | null): Promise<boolean> } | null;
}

export const AppContext = createContext<AppContextValue | null>(null);

export function useApp(): AppContextValue {
  const value = useContext(AppContext);
  if (value === null) throw new Error('useApp: the view is rendered outside <AppContext.Provider>.');
  return value;
}

export function useController(): Controller {
  return useApp().controller;
}

/** A slice of the store; the component re-renders when the selected value changes (by Object.is). */
export function useWeft<T>(selector: (state: StoreState) => T): T {
  return useStore(useApp().store, selector);
}
