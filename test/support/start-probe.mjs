// Loaded with `node --import` into a `weft` process by test/integration/cli-start.test.ts. Appends to the
// file named by WEFT_START_PROBE one line per module file the process loads (`load <url>`) and per V8 flag
// it sets at run time (`flag <flags>`).
import { appendFileSync } from 'node:fs';
import module from 'node:module';
import v8 from 'node:v8';

const out = process.env.WEFT_START_PROBE;
if (!out) throw new Error('start-probe: WEFT_START_PROBE names no file');
const record = (line) => appendFileSync(out, `${line}\n`);

const setFlags = v8.setFlagsFromString;
v8.setFlagsFromString = (flags) => {
  record(`flag ${flags}`);
  setFlags(flags);
};
// ES imports of node:v8 see the replacement too.
module.syncBuiltinESMExports();

module.registerHooks({
  load(url, context, nextLoad) {
    if (url.startsWith('file:')) record(`load ${url}`);
    return nextLoad(url, context);
  },
});
