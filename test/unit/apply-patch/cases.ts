// Benchmark-scale patches for the apply_patch tests (and manual timing).

/** A 200,000-line file and a 2,000-hunk patch (3 lines of context each side), with the expected result. */
export function bigUpdateCase(): { original: string; patchText: string; expected: string } {
  const lineCount = 200_000;
  const hunkCount = 2_000;
  const lines = Array.from({ length: lineCount }, (_, i) => `    const value${i} = compute(${i}); // line ${i}`);
  const expected = [...lines];
  const patchLines = ['*** Begin Patch', '*** Update File: big.ts'];
  const step = lineCount / hunkCount;
  for (let h = 0; h < hunkCount; h++) {
    const target = h * step + 50;
    patchLines.push('@@');
    for (let k = target - 3; k < target; k++) patchLines.push(` ${lines[k]}`);
    patchLines.push(`-${lines[target]}`, `+    const value${target} = computeFaster(${target});`);
    for (let k = target + 1; k <= target + 3; k++) patchLines.push(` ${lines[k]}`);
    expected[target] = `    const value${target} = computeFaster(${target});`;
  }
  patchLines.push('*** End Patch');
  return {
    original: lines.join('\n') + '\n',
    patchText: patchLines.join('\n') + '\n',
    expected: expected.join('\n') + '\n',
  };
}

/** A patch adding 500 files of 40 lines each, spread over 10 directories. */
export function manyAddsCase(): string {
  const patchLines = ['*** Begin Patch'];
  for (let f = 0; f < 500; f++) {
    patchLines.push(`*** Add File: pkg${f % 10}/file${f}.ts`);
    for (let l = 0; l < 40; l++) patchLines.push(`+export const v${l} = ${f * 40 + l};`);
  }
  patchLines.push('*** End Patch');
  return patchLines.join('\n') + '\n';
}
