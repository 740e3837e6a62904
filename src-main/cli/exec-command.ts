/** `weft exec` with its arguments (the words after `exec`). */
export async function execCommand(argv: string[]): Promise<number> {
  // One task, then the process ends: zod's compiled fast path for an object schema (made with `new
  // Function` on its first parse) costs more than it saves for what is parsed a few times. Set before any
  // schema is made (it is read when a schema is built), so exec and its imports are loaded after it.
  (await import('zod')).config({ jitless: true });
  return (await import('./exec')).runExecCommand(argv);
}
