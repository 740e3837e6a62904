// What each `weft` command loads before it does anything: the command's chunk and every chunk it imports
// statically, read from esbuild's metafile for the same bundle scripts/build-cli.mjs writes. A library
// that only some runs need (the MCP SDK when no server is configured) must be behind a dynamic import.
import { build, type Metafile } from 'esbuild';
import { ErrorCode as SdkErrorCode } from '@modelcontextprotocol/sdk/types.js';
import { beforeAll, describe, expect, it } from 'vitest';
import { ErrorCode } from '../../../src-main/mcp/error-codes';

let meta: Metafile;

beforeAll(async () => {
  const result = await build({
    entryPoints: { cli: 'src-main/cli.ts', 'index-check-worker': 'src-main/store/index-check-worker.ts' },
    outdir: 'out',
    bundle: true,
    splitting: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    external: ['node-pty', 'better-sqlite3', 'electron', 'web-tree-sitter'],
    write: false,
    metafile: true,
    logLevel: 'silent',
  });
  meta = result.metafile;
}, 60_000);

/** The sources and external packages loaded with `entry`'s chunk: static imports only, transitively. */
function staticClosure(entry: string): { inputs: Set<string>; externals: Set<string> } {
  const outputs = meta.outputs;
  const start = Object.keys(outputs).find((o) => outputs[o]?.entryPoint === entry);
  if (start === undefined) throw new Error(`no chunk has the entry point ${entry}`);
  const inputs = new Set<string>();
  const externals = new Set<string>();
  const seen = new Set<string>();
  const visit = (path: string): void => {
    if (seen.has(path)) return;
    seen.add(path);
    const output = outputs[path];
    if (output === undefined) throw new Error(`the metafile has no output ${path}`);
    for (const input of Object.keys(output.inputs)) inputs.add(input);
    for (const imported of output.imports) {
      if (imported.kind !== 'import-statement') continue;
      if (imported.external) externals.add(imported.path);
      else visit(imported.path);
    }
  };
  visit(start);
  return { inputs, externals };
}

const fromPackage = (inputs: Set<string>, name: string): string[] =>
  [...inputs].filter((i) => i.includes(`node_modules/${name}/`));

describe('weft command start-up', () => {
  it('exec loads no MCP SDK (nor its ajv validator) until a server is configured', () => {
    const { inputs } = staticClosure('src-main/cli/exec.ts');
    expect(inputs.has('src-main/cli/exec.ts')).toBe(true);
    expect(inputs.has('src-main/mcp/manager.ts')).toBe(true);
    expect(fromPackage(inputs, '@modelcontextprotocol/sdk')).toEqual([]);
    expect(fromPackage(inputs, 'ajv')).toEqual([]);
    expect(inputs.has('src-main/mcp/client-sdk.ts')).toBe(false);
    expect(inputs.has('src-main/mcp/oauth.ts')).toBe(false);
  });

  it('apply-patch loads neither zod nor the protocol; exec loads no app server', () => {
    const patch = staticClosure('src-main/cli/apply-patch.ts');
    expect(patch.inputs.has('src-main/tools/apply-patch/index.ts')).toBe(true);
    expect(fromPackage(patch.inputs, 'zod')).toEqual([]);
    // Of the protocol, only the diff size limits (plain numbers, no schema).
    expect([...patch.inputs].filter((i) => i.startsWith('src-preload/'))).toEqual([
      'src-preload/protocol/diff-limits.ts',
    ]);
    const exec = staticClosure('src-main/cli/exec.ts');
    expect(exec.inputs.has('src-preload/protocol/methods.ts')).toBe(true);
    expect([...exec.inputs].filter((i) => i.startsWith('src-main/server/'))).toEqual([]);
  });

  it('the app server loads no OpenAI SDK, no yaml and no node:http (whose ES facade loads undici) before they are used', () => {
    for (const entry of ['src-main/cli/app-server.ts', 'src-main/server/app-host-rest.ts']) {
      const { inputs, externals } = staticClosure(entry);
      expect(inputs.has('src-main/model/responses-client.ts')).toBe(entry.includes('rest'));
      // Only the SDK's error classes, which the model clients classify failures with.
      expect(
        fromPackage(inputs, 'openai').filter((i) => !/openai\/(core\/error|error|internal\/errors)\.mjs$/.test(i)),
      ).toEqual([]);
      expect(fromPackage(inputs, 'yaml')).toEqual([]);
      expect([...externals].filter((e) => e === 'node:http' || e === 'http')).toEqual([]);
    }
  });

  it("Weft's modules import node:http and (outside the commands' own) node:util through getBuiltinModule", () => {
    // An ES import makes Node build the module's facade, which reads every export: node:http's WebSocket
    // loads undici (30-50 ms), node:util's diff and parseArgs load theirs.
    const importers = Object.entries(meta.inputs)
      .filter(([path]) => path.startsWith('src-'))
      .flatMap(([path, input]) =>
        input.imports
          .filter((i) => i.path === 'node:http' || (i.path === 'node:util' && !path.startsWith('src-main/cli/')))
          .map((i) => `${path}: ${i.path}`),
      );
    expect(importers).toEqual([]);
  });

  it("the start-up index check's worker loads neither zod, the protocol nor the rollout reader until a rollout changed", () => {
    // A worker is a Node instance of its own: what it loads it compiles and keeps, beside the host's copy.
    // With zod, the protocol and the reader loaded at its start, the worker raised the app server's resident
    // memory by about 50 MiB while it stat-ed the rollouts of an index that was already right.
    const { inputs, externals } = staticClosure('src-main/store/index-check-worker.ts');
    expect(inputs.has('src-main/store/index-changes.ts')).toBe(true);
    expect(fromPackage(inputs, 'zod')).toEqual([]);
    expect([...inputs].filter((i) => i.startsWith('src-preload/'))).toEqual([]);
    for (const reader of ['repair', 'index-scan', 'loader', 'thread-index', 'outline-snapshot', 'line-reader']) {
      expect(inputs.has(`src-main/store/${reader}.ts`)).toBe(false);
    }
    expect(externals.has('better-sqlite3')).toBe(true);
    // The reading is one dynamic import away.
    const worker = Object.values(meta.outputs).find((o) => o.entryPoint === 'src-main/store/index-check-worker.ts');
    expect(worker?.imports.some((i) => i.kind === 'dynamic-import')).toBe(true);
  });

  it('the MCP client side is one dynamic import away from a connection', () => {
    const client = Object.entries(meta.outputs).find(([, o]) => o.entryPoint === 'src-main/mcp/client-sdk.ts');
    expect(client).toBeDefined();
    const { inputs } = staticClosure('src-main/mcp/client-sdk.ts');
    expect(fromPackage(inputs, '@modelcontextprotocol/sdk').length).toBeGreaterThan(0);
    expect(inputs.has('src-main/mcp/oauth.ts')).toBe(true);
  });

  it("answers MCP servers with the SDK's JSON-RPC error codes", () => {
    expect(ErrorCode).toEqual({
      InvalidRequest: SdkErrorCode.InvalidRequest,
      MethodNotFound: SdkErrorCode.MethodNotFound,
      InvalidParams: SdkErrorCode.InvalidParams,
      RequestTimeout: SdkErrorCode.RequestTimeout,
    });
  });
});
