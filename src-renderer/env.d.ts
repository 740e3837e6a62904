/// <reference types="vite/client" />

/** The app version (package.json), inlined by vite.config.ts. */
declare const __WEFT_VERSION__: string;
