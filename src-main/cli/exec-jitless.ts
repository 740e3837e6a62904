// Imported first by exec-entry.ts, so that it runs before any module of `weft exec` builds a schema: one
// task, then the process ends, and zod's compiled fast path for an object schema (made with `new Function`
// on its first parse) costs more than it saves for what is parsed a few times.
import { config } from 'zod';

config({ jitless: true });
