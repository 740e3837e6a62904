// Tools that need the real Codex CLI (never run by `npm test`):
//   node scripts/codex-tools.mjs make-fixtures [codex]        remake test/fixtures/codex-0.169/
//   node scripts/codex-tools.mjs check-resume [codex] FILE…   copy rollouts into a scratch Codex home and
//                                                             check that `thread/read`, `thread/list` and
//                                                             `codex exec resume` accept them
//   node scripts/codex-tools.mjs make-notify [codex]          remake test/fixtures/codex-notify-0.169/
//   node scripts/codex-tools.mjs capture-agents [codex]       remake test/fixtures/codex-agents-0.169/ (the
//                                                             sub-agent tools and their app-server items)
//   node scripts/codex-tools.mjs capture-hooks [codex]        remake test/fixtures/codex-hooks-0.169/ (hook
//                                                             payloads, blocks, trust, hook/* notifications)
//   node scripts/codex-tools.mjs capture-hook-events [codex]  add to it: additionalContext, Stop blocks, MCP
//                                                             names, PermissionRequest, Interrupt, SessionEnd
//   node scripts/codex-tools.mjs capture-stop-hooks [codex]   add stop-outcomes.json: the app server's items
//                                                             and hook runs for each kind of Stop hook output
// The codex binary defaults to $CODEX_BIN, else `codex` on PATH. Each tool is a TypeScript file in
// test/support/, bundled here with esbuild and run with Node.
import { build } from 'esbuild';
import { spawnSync } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const TOOLS = {
  'make-fixtures': 'make-codex-fixtures.ts',
  'check-resume': 'check-codex-resume.ts',
  'make-notify': 'make-notify-fixture.ts',
  'capture-agents': 'capture-codex-agents.ts',
  'capture-hooks': 'capture-codex-hooks.ts',
  'capture-hook-events': 'capture-codex-hook-events.ts',
  'capture-stop-hooks': 'capture-codex-stop-hooks.ts',
};
const [tool, ...args] = process.argv.slice(2);
const source = TOOLS[tool ?? ''];
if (!source) {
  process.stderr.write(`usage: node scripts/codex-tools.mjs ${Object.keys(TOOLS).join('|')} [codex binary] [files…]\n`);
  process.exit(2);
}
const root = fileURLToPath(new URL('..', import.meta.url));
// Bundled inside the project so the bundle finds its packages in node_modules.
const dir = join(root, 'node_modules', '.cache', 'weft-codex-tools');
mkdirSync(dir, { recursive: true });
const outfile = join(dir, `${tool}.mjs`);
await build({
  entryPoints: [join(root, 'test/support', source)],
  outfile,
  bundle: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  packages: 'external',
  logLevel: 'warning',
});
const run = spawnSync(process.execPath, [outfile, ...args], { stdio: 'inherit', cwd: root });
process.exit(run.status ?? 1);
