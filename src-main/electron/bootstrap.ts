// The desktop app's first module (dist/electron/main.js). It turns on V8's code cache for the main
// process, kept in WEFT_HOME/cache/compile as the `weft` command keeps its own (made on the first start,
// reused after), and then loads the app (dist/electron/app.js, bundled from entry.ts). The cache must be on
// before the app's bundle is compiled, so the app is imported here, after it, and not bundled with it. The
// import is awaited at the top level: Electron emits `ready` only once its ESM entry has settled, so the
// app still runs everything it must run before `ready`.
import module from 'node:module';
import { join } from 'node:path';
import { resolveWeftHome } from '../config/home';

// NODE_COMPILE_CACHE, when set, has turned the cache on already (in the folder it names).
if (process.env['NODE_COMPILE_CACHE'] === undefined || process.env['NODE_COMPILE_CACHE'] === '')
  module.enableCompileCache(join(resolveWeftHome(process.env), 'cache', 'compile'));

await import(new URL('./app.js', import.meta.url).href);
