// What every view reaches through React context: the store and the controller.
import { createContext, useContext } from 'react';
import { useStore } from 'zustand';
import type { Controller } from './controller';
import type { AppStore, StoreState } from './store';

export interface AppContextValue {
  store: AppStore;
  controller: Controller;
  /**
   * The desktop shell: `openProject(path)` opens (or focuses) a window of that project,
   * `openProject(null)` asks with the native folder dialog first (the welcome screen's Open folder);
   * `chooseFolder()` asks with the dialog for a folder this window's sidebar opens among its projects.
   * Null in a browser, where the page asks with its own folder picker.
   */
  desktop: { openProject(path: string | null): Promise<boolean>; chooseFolder(): Promise<string | null> } | null;
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
