// Starting a worker thread (node:worker_threads) on a program of Weft's own. Each such program is an entry
// of the bundle of its own (scripts/build-cli.mjs, scripts/build-electron.mjs), written beside the chunk
// that starts it (`dist/cli/<name>.js`, `dist/electron/<name>.js`). Run from the TypeScript sources (the
// tests), there is no bundle: the worker then loads the source file through a small loader that resolves
// extensionless imports to `.ts` files and strips the types (Node's own `stripTypeScriptTypes`).
import { access } from 'node:fs/promises';
import module from 'node:module';
import { Worker, type WorkerOptions } from 'node:worker_threads';
import { startInBackground } from './pool-priority';

/** The worker programs: bundle entry name → its source, relative to this file. */
const WORKER_SOURCES = {
  'index-check-worker': '../store/index-check-worker.ts',
} as const;

export type WorkerName = keyof typeof WORKER_SOURCES;

/**
 * The worker's loader when it runs from source (CommonJS, evaluated as the worker's first script): it
 * registers the hooks, then imports the program. Relative imports without an extension resolve to `X.ts`
 * or `X/index.ts`, as the bundler resolves them.
 */
const SOURCE_LOADER = `
const { registerHooks, stripTypeScriptTypes } = require('node:module');
const { readFileSync } = require('node:fs');
const { fileURLToPath } = require('node:url');
const { workerData } = require('node:worker_threads');
registerHooks({
  resolve(specifier, context, next) {
    try {
      return next(specifier, context);
    } catch (error) {
      if (!specifier.startsWith('.') || !context.parentURL || !context.parentURL.endsWith('.ts')) throw error;
      for (const suffix of ['.ts', '/index.ts']) {
        try {
          return next(specifier + suffix, context);
        } catch {}
      }
      throw error;
    }
  },
  load(url, context, next) {
    if (!url.startsWith('file:') || !url.endsWith('.ts')) return next(url, context);
    const text = readFileSync(fileURLToPath(url), 'utf8');
    return { format: 'module', source: stripTypeScriptTypes(text, { mode: 'transform' }), shortCircuit: true };
  },
});
// A program that fails to load ends the worker with its error (the 'error' event), not silently.
import(workerData.weftWorkerSource).catch((error) => setImmediate(() => { throw error; }));
`;

const exists = (url: URL): Promise<boolean> =>
  access(url).then(
    () => true,
    () => false,
  );

/**
 * `options` with the process's compile cache (bin/weft.js enables it at start) named in the worker's
 * environment: a worker is a Node instance of its own, which uses a compile cache only when told of one, and
 * compiled its program on every start without it. Only the worker's copy of the environment says so: the
 * process's own, which the agents' commands inherit, is left alone.
 */
function withCompileCache<T extends WorkerOptions>(options: T): T {
  const directory = module.getCompileCacheDir();
  if (directory === undefined || options.env !== undefined) return options;
  return { ...options, env: { ...process.env, NODE_COMPILE_CACHE: directory } };
}

/**
 * Starts the worker program `name` with `options` (its `workerData` must be an object); null when it
 * cannot be found here (a bundle built without it): the caller then does the work on its own thread.
 * Weft's worker programs do background work (the start-up index check): each runs below the main thread
 * from its first instruction (`startInBackground`), unless `background` is false (work a request waits for).
 */
export async function startWorker(
  name: WorkerName,
  options: WorkerOptions & { workerData: object },
  { background = true }: { background?: boolean } = {},
): Promise<Worker | null> {
  options = withCompileCache(options);
  const start = background ? startInBackground : <T>(make: () => T): T => make();
  // Bundled, the program is beside the chunk that holds this code.
  const built = new URL(`./${name}.js`, import.meta.url);
  if (await exists(built)) return start(() => new Worker(built, options));
  const source = new URL(WORKER_SOURCES[name], import.meta.url);
  if (!import.meta.url.endsWith('.ts') || !(await exists(source))) return null;
  return start(
    () =>
      new Worker(SOURCE_LOADER, {
        ...options,
        eval: true,
        // The type stripper is experimental in Node 24: its warning says nothing to a user of the tests.
        execArgv: [...(options.execArgv ?? []), '--no-warnings'],
        workerData: { ...options.workerData, weftWorkerSource: source.href },
      }),
  );
}
