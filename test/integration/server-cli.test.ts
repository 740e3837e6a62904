// The `weft app-server` and `weft serve` entry functions, run in a child process the way the CLI runs
// them (real stdio, real signals), against the echo host instead of the real dispatcher.
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { once } from 'node:events';
import { readdir, readFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { join, resolve } from 'node:path';
import { build } from 'esbuild';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateProtocolJsonSchema, schemaFileText } from '../../src-main/server/json-schema';
import { makeTempWorkspace, type TempWorkspace } from '../support/workspace';
import { openClient, rawGet, withId } from './ws-client';

const ROOT = resolve(__dirname, '../..');
const ENTRY = `
import { runAppServerCommand } from './src-main/cli/app-server';
import { runServeCommand } from './src-main/cli/serve';
import { EchoHost } from './test/unit/server/helpers';
const [command, ...args] = process.argv.slice(2);
const createHost = async (opts?: { cwd: string }) => {
  process.stderr.write('host created' + (opts ? ' for ' + opts.cwd : '') + '\\n');
  return { host: new EchoHost(), close: async () => { process.stderr.write('host closed\\n'); } };
};
process.exitCode = command === 'serve' ? await runServeCommand(args, createHost) : await runAppServerCommand(process.argv.slice(2), createHost);
`;

let work: TempWorkspace;
let entry: string;

beforeAll(async () => {
  work = await makeTempWorkspace({ 'project/README.md': 'hi\n' });
  entry = join(work.dir, 'entry.mjs');
  await build({
    stdin: { contents: ENTRY, resolveDir: ROOT, loader: 'ts', sourcefile: 'server-cli-entry.ts' },
    outfile: entry,
    bundle: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    logLevel: 'error',
    banner: { js: "import { createRequire as __cr } from 'node:module'; const require = __cr(import.meta.url);" },
  });
});

afterAll(async () => {
  await work.cleanup();
});

interface Child {
  child: ChildProcessWithoutNullStreams;
  stdout: () => string;
  stderr: () => string;
  /** Resolves with the first stdout line matching `pattern`. */
  line: (pattern: RegExp) => Promise<string>;
  exit: Promise<number | null>;
}

function run(args: string[]): Child {
  const child = spawn(process.execPath, [entry, ...args], { cwd: work.dir });
  let out = '';
  let err = '';
  const waiters: (() => void)[] = [];
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
    out += chunk;
    for (const wake of waiters.splice(0)) wake();
  });
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (err += chunk));
  const exit = once(child, 'close').then(([code]) => (typeof code === 'number' ? code : null));
  const line = (pattern: RegExp): Promise<string> =>
    new Promise((resolveLine, reject) => {
      const check = (): void => {
        const found = out.split('\n').find((candidate) => pattern.test(candidate));
        if (found !== undefined) resolveLine(found);
        else if (child.exitCode !== null)
          reject(new Error(`exited ${child.exitCode} without ${String(pattern)}; stderr: ${err}`));
        else waiters.push(check);
      };
      void exit.then(() => waiters.length > 0 && check());
      check();
    });
  return { child, stdout: () => out, stderr: () => err, line, exit };
}

describe('weft app-server (stdio)', () => {
  it('answers requests and garbage on stdout with JSON only, and exits 0 when stdin closes', async () => {
    const app = run([]);
    app.child.stdin.write('{"id":1,"method":"initialize","params":{}}\nnot json at all\n\n');
    await app.line(/"id":null/);
    app.child.stdin.write('{"id":2,"method":"thread/list"}\n');
    await app.line(/"id":2/);
    app.child.stdin.end();
    expect(await app.exit).toBe(0);
    const lines = app
      .stdout()
      .split('\n')
      .filter((l) => l !== '');
    expect(lines.map((l) => JSON.parse(l) as unknown)).toEqual([
      { id: 1, result: { echo: 'initialize', params: {} } },
      { id: null, error: { code: -32700, message: expect.stringMatching(/^Parse error: /) as unknown } },
      { id: 2, result: { echo: 'thread/list', params: null } },
    ]);
    expect(app.stderr()).toContain('host closed');
  });

  it('writes the JSON Schema with generate-json-schema --out', async () => {
    const out = join(work.dir, 'schema');
    const app = run(['generate-json-schema', '--out', out]);
    expect(await app.exit).toBe(0);
    const generated = generateProtocolJsonSchema();
    const written = (await readdir(out)).sort();
    expect(written).toEqual(Object.keys(generated).sort());
    const combined = generated['weft-protocol.schema.json'];
    expect(await readFile(join(out, 'weft-protocol.schema.json'), 'utf8')).toBe(schemaFileText(combined ?? {}));
    expect(app.stdout()).toContain(`Wrote ${written.length} JSON Schema files to ${out}`);
  });

  it('requires --out for generate-json-schema', async () => {
    const app = run(['generate-json-schema']);
    expect(await app.exit).toBe(2);
    expect(app.stderr()).toContain('--out <dir> is required');
  });
});

describe('weft serve', () => {
  it('prints one "Weft is serving <url>" line, serves the socket, and shuts down cleanly on SIGTERM', async () => {
    const project = work.path('project');
    const app = run(['serve', '--port', '0', '--token', 'cli-token', '--cd', project]);
    const line = await app.line(/^Weft is serving /);
    const url = new URL(line.slice('Weft is serving '.length));
    expect(url.origin).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(url.searchParams.get('token')).toBe('cli-token');
    expect(url.searchParams.get('cwd')).toBe(project);
    expect(app.stderr()).toContain(`host created for ${project}`);
    const port = Number(url.port);
    expect(JSON.parse((await rawGet(port, '/healthz')).body)).toEqual({ status: 'ok' });
    const client = await openClient(`ws://127.0.0.1:${port}/ws?token=cli-token`);
    client.send({ id: 9, method: 'model/list' });
    await client.next(withId(9), 'id 9');
    app.child.kill('SIGTERM');
    expect(await client.closed).toEqual({ code: 1001, reason: 'the server is shutting down' });
    expect(await app.exit).toBe(0);
    expect(app.stdout()).toBe(`${line}\n`);
    expect(app.stderr()).toContain('host closed');
  });

  it('explains a busy port and suggests --port 0', async () => {
    const blocker = createServer();
    await new Promise<void>((done) => blocker.listen(0, '127.0.0.1', () => done()));
    const address = blocker.address();
    const port = typeof address === 'object' && address !== null ? address.port : 0;
    try {
      const app = run(['serve', '--port', String(port)]);
      expect(await app.exit).toBe(1);
      expect(app.stderr()).toContain(`port ${port} on 127.0.0.1 is already in use. Pass --port 0 to pick a free port`);
      expect(app.stderr()).toContain('host closed');
      expect(app.stdout()).toBe('');
    } finally {
      await new Promise<void>((done) => blocker.close(() => done()));
    }
  });

  it('rejects a bad --port', async () => {
    const app = run(['serve', '--port', 'eighty']);
    expect(await app.exit).toBe(2);
    expect(app.stderr()).toContain('--port must be a whole number from 0 to 65535');
  });
});
