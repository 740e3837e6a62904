// `weft mcp-server` and `weft acp` on the command line: help, and clear errors for bad options.
import { execFile } from 'node:child_process';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const WEFT = resolve(__dirname, '../../bin/weft.js');

function weft(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((done) => {
    execFile(
      process.execPath,
      [WEFT, ...args],
      { env: { PATH: process.env['PATH'] ?? '', HOME: process.env['HOME'] ?? '' } },
      (error, stdout, stderr) => {
        done({ code: error ? Number(error.code ?? 1) : 0, stdout, stderr });
      },
    );
  });
}

describe('weft mcp-server and weft acp options', () => {
  it('explain themselves', async () => {
    const mcp = await weft(['mcp-server', '--help']);
    expect(mcp.code).toBe(0);
    expect(mcp.stdout).toContain('Usage: weft mcp-server');
    const acp = await weft(['acp', '--help']);
    expect(acp.code).toBe(0);
    expect(acp.stdout).toContain('Usage: weft acp');
    expect((await weft(['--help'])).stdout).toMatch(/mcp-server[\s\S]*acp/);
  });

  it('refuse bad options with a reason', async () => {
    expect(await weft(['mcp-server', '--port', 'many'])).toMatchObject({
      code: 2,
      stderr: expect.stringContaining('--port must be a whole number from 0 to 65535, got "many"'),
    });
    expect(await weft(['mcp-server', '--token', 'x'])).toMatchObject({
      code: 2,
      stderr: expect.stringContaining('--token only applies with --port'),
    });
    expect(await weft(['mcp-server', '-C', '/no/such/folder'])).toMatchObject({
      code: 2,
      stderr: expect.stringContaining('no such directory'),
    });
    expect(await weft(['acp', '--bogus'])).toMatchObject({
      code: 2,
      stderr: expect.stringContaining("Unknown option '--bogus'"),
    });
  });
});
