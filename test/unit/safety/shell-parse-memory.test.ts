// The bash grammar's lexer is one WebAssembly function of 160 KB. V8's optimizing tier compiles it in the
// background at the first parse: on Node 24 that compile holds about 660 MB and takes 2 to 3.5 s of CPU
// (Node 20: 60 MB, same CPU), a spike every host process paid at its first non-simple command. The grammar
// runs on V8's baseline compiler only (shell-parse.ts), so parsing never starts that compile.
import { getHeapStatistics } from 'node:v8';
import { describe, expect, it } from 'vitest';
import { grammarCommands, loadShellParser } from '../../../src-main/safety/approvals/shell-parse';

describe('the bash grammar in memory', () => {
  it('parses 3,000 scripts without V8 compiling the grammar at its optimizing tier', async () => {
    await loadShellParser();
    // V8's compiler memory (zones) now, sampled as the parses go: the optimizing compile of the lexer passes
    // 100 MB within half a second of starting. Sampled rather than V8's peak, which counts whatever else
    // this worker process compiled before.
    let most = 0;
    for (let i = 0; i < 3000; i++) {
      // Not simple (a pipe into a redirection, an expansion): the grammar reads it.
      grammarCommands(`mkdir -p a${i} && base64 /dev/urandom | head -c 1024 > a${i}/d.txt && echo "$HOME"`);
      if (i % 100 === 0) {
        // Give V8's background compile its chance to start, as a host's event loop would.
        await new Promise<void>((resolve) => setImmediate(resolve));
        most = Math.max(most, getHeapStatistics().malloced_memory);
      }
    }
    expect(most / 1048576).toBeLessThan(64);
  });
});
