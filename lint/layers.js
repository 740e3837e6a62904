// The layering table of docs/ARCHITECTURE.md ("Layering"), as `weft/layering` (lint/layering.js) enforces
// it. A unit is a folder under src-main/, src-preload/ or src-renderer/ (a file directly under one of them,
// such as src-main/cli.ts, belongs to the folder of its name). Each unit lists the units it may import;
// imports inside a unit are always allowed. `packages` says which npm packages and Node built-ins it may
// import: 'any', 'node' (any, except electron), 'browser' (any, except Node built-ins and electron), or a list
// of names (a list may name electron).

const main = (names) => names.map((n) => `src-main/${n}`);
const renderer = (names) => names.map((n) => `src-renderer/${n}`);
const PROTOCOL = 'src-preload/protocol';
/** The one reader of unified diffs (jsdiff underneath), shared by the core and the renderer. */
const DIFF = 'src-preload/diff';

/** Folders below the core's tools: safety, model and config, and the helpers everything may use. */
const BASE = [...main(['safety', 'model', 'config', 'util', 'version']), PROTOCOL];

/** @type {Record<string, { may: string[]; packages: 'any' | 'node' | 'browser' | string[] }>} */
export const layers = {
  // The faces and shells of the program.
  'src-main/cli': {
    may: [
      ...main([
        'automations',
        'faces',
        'server',
        'core',
        'tools',
        'store',
        'context',
        'mcp',
        'checkpoints',
        'git',
        'terminal',
        'browser',
      ]),
      ...BASE,
    ],
    packages: 'node',
  },
  // Automations: their files, history, lock and scheduler; the thread of a run is an executor's.
  'src-main/automations': { may: BASE, packages: 'node' },
  'src-main/electron': {
    may: [...main(['faces', 'server', 'config', 'util', 'version']), 'src-preload/bridge', PROTOCOL],
    packages: 'any',
  },
  'src-main/faces': { may: [...main(['automations', 'server', 'util', 'version']), PROTOCOL, DIFF], packages: 'node' },
  // The app server and the core.
  'src-main/server': {
    may: [
      ...main(['automations', 'core', 'tools', 'store', 'context', 'mcp', 'checkpoints', 'git', 'terminal']),
      ...BASE,
    ],
    packages: 'node',
  },
  'src-main/core': {
    may: [...main(['tools', 'store', 'context', 'mcp', 'checkpoints', 'terminal', 'browser']), ...BASE],
    packages: 'node',
  },
  // What the core uses.
  'src-main/tools': { may: BASE, packages: 'node' },
  'src-main/store': { may: [...BASE, DIFF], packages: 'node' },
  'src-main/context': { may: BASE, packages: 'node' },
  'src-main/checkpoints': { may: BASE, packages: 'node' },
  'src-main/mcp': { may: [...main(['tools']), ...BASE], packages: 'node' },
  // The agent's browser (the `browser` tools): Chromium through playwright-core.
  'src-main/browser': { may: [...main(['tools']), ...BASE], packages: 'node' },
  'src-main/terminal': { may: [...main(['tools', 'checkpoints']), ...BASE], packages: 'node' },
  'src-main/git': { may: [...main(['checkpoints']), ...BASE, DIFF], packages: 'node' },
  // Below the tools.
  'src-main/safety': { may: [...main(['config', 'util']), PROTOCOL], packages: 'node' },
  'src-main/model': { may: [...main(['config', 'util', 'version']), PROTOCOL], packages: 'node' },
  'src-main/config': { may: [...main(['util']), PROTOCOL], packages: 'node' },
  'src-main/util': { may: [PROTOCOL], packages: 'node' },
  'src-main/version': { may: [], packages: 'node' },
  // The contract and the preload.
  'src-preload/protocol': { may: [], packages: ['zod'] },
  [DIFF]: { may: [], packages: ['diff'] },
  'src-preload/bridge': { may: [PROTOCOL], packages: ['zod'] },
  'src-preload/index': { may: ['src-preload/bridge', PROTOCOL], packages: ['zod', 'electron'] },
  // The renderer: it reaches the core only through the protocol.
  'src-renderer/main': {
    may: [...renderer(['views', 'components', 'store', 'client', 'styles']), PROTOCOL],
    packages: 'browser',
  },
  'src-renderer/views': {
    may: [...renderer(['components', 'store', 'client', 'styles']), PROTOCOL, DIFF],
    packages: 'browser',
  },
  'src-renderer/components': { may: [...renderer(['store', 'styles']), PROTOCOL, DIFF], packages: 'browser' },
  'src-renderer/store': { may: [...renderer(['client']), PROTOCOL], packages: 'browser' },
  'src-renderer/client': { may: [PROTOCOL], packages: 'browser' },
  'src-renderer/styles': { may: [], packages: 'browser' },
  'src-renderer/env': { may: [], packages: 'browser' },
};

/** The table as docs/ARCHITECTURE.md shows it (a test keeps the two the same). */
export function layeringTable() {
  const short = (unit) => `\`${unit}\``;
  const packages = (p) =>
    Array.isArray(p)
      ? p.length === 0
        ? 'none'
        : p.map((n) => `\`${n}\``).join(', ')
      : p === 'any'
        ? 'any'
        : p === 'node'
          ? 'any but `electron`'
          : 'any but Node built-ins and `electron`';
  const rows = Object.entries(layers).map(
    ([unit, row]) =>
      `| ${short(unit)} | ${row.may.length === 0 ? '—' : row.may.map(short).join(', ')} | ${packages(row.packages)} |`,
  );
  return ['| folder | may import | packages |', '| --- | --- | --- |', ...rows].join('\n');
}
