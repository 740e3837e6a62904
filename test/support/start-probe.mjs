// Loaded with `node --import` into a `weft` process by test/integration/cli-start.test.ts. Appends to the
// file named by WEFT_START_PROBE one line per module file the process loads (`load <url>`) and per V8 flag
// it sets at run time (`flag <flags>`) and per WebAssembly module it compiles (`wasm <how>`), and at exit the
// Node built-in modules it loaded (`builtins <ids>`).
// Node's modules through getBuiltinModule: the ES facade of `node:fs` would load Node's streams itself, and
// so does `node:v8`, which is why WEFT_START_PROBE_BUILTINS=1 (the built-ins a command loads) leaves the
// flags unrecorded.
const { appendFileSync } = process.getBuiltinModule('node:fs');
const module = process.getBuiltinModule('node:module');

const out = process.env.WEFT_START_PROBE;
if (!out) throw new Error('start-probe: WEFT_START_PROBE names no file');
const record = (line) => appendFileSync(out, `${line}\n`);

if (process.env.WEFT_START_PROBE_BUILTINS !== '1') {
  const v8 = process.getBuiltinModule('node:v8');
  const setFlags = v8.setFlagsFromString;
  v8.setFlagsFromString = (flags) => {
    record(`flag ${flags}`);
    setFlags(flags);
  };
  // ES imports of node:v8 see the replacement too.
  module.syncBuiltinESMExports();
}

// Node's own code (undici's HTTP parser) reaches WebAssembly through the global too.
const wasm = globalThis.WebAssembly;
wasm.Module = new Proxy(wasm.Module, {
  construct(target, args, newTarget) {
    record('wasm Module');
    return Reflect.construct(target, args, newTarget);
  },
});
for (const name of ['compile', 'instantiate', 'compileStreaming', 'instantiateStreaming']) {
  const original = wasm[name];
  if (typeof original !== 'function') continue;
  wasm[name] = function (...args) {
    // `instantiate` of a module already compiled compiles nothing.
    if (!(name === 'instantiate' && args[0] instanceof wasm.Module)) record(`wasm ${name}`);
    return original.apply(this, args);
  };
}

module.registerHooks({
  load(url, context, nextLoad) {
    if (url.startsWith('file:')) record(`load ${url}`);
    return nextLoad(url, context);
  },
});

process.on('exit', () => {
  const builtins = process.moduleLoadList.filter((m) => m.startsWith('NativeModule ')).map((m) => m.slice(13));
  record(`builtins ${builtins.join(' ')}`);
});
