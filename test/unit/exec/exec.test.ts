import { afterAll, describe, expect, it } from 'vitest';
import { commandEnvPolicy } from '../../../src-main/safety/command-env';
import { ExecSessionManager } from '../../../src-main/tools/exec';
import { ctx, scratchDir } from './helpers';

const workdir = scratchDir();
const manager = new ExecSessionManager();
afterAll(() => manager.closeAll('test finished'));

describe('exec_command', () => {
  it('runs a command to completion and formats the output like Codex', async () => {
    const result = await manager.exec({ cmd: 'echo hello', workdir, login: false }, ctx());
    expect(result.text).toMatch(
      /^Chunk ID: [0-9a-f]{6}\nWall time: \d+\.\d{4} seconds\nProcess exited with code 0\nOutput:\nhello\n$/,
    );
    expect(result).toMatchObject({
      exitCode: 0,
      sessionId: null,
      output: 'hello\n',
      truncated: false,
      originalTokenCount: null,
      aborted: false,
    });
    expect(result.pid).toBeGreaterThan(0);
    expect(result.text).toContain(`Wall time: ${(result.wallTimeMs / 1000).toFixed(4)} seconds`);
  });

  it('reports a non-zero exit code and merges stderr into the output', async () => {
    const result = await manager.exec({ cmd: 'echo out; echo err >&2; exit 7', workdir, login: false }, ctx());
    expect(result.exitCode).toBe(7);
    expect(result.text).toContain('\nProcess exited with code 7\n');
    expect(result.output.split('\n').sort()).toEqual(['', 'err', 'out']);
  });

  it('runs in workdir with the requested shell, as a login shell by default', async () => {
    const result = await manager.exec(
      { cmd: 'pwd; shopt -q login_shell && echo login', workdir, shell: '/bin/bash' },
      ctx(),
    );
    expect(result.output).toBe(`${workdir}\nlogin\n`);
    const plain = await manager.exec(
      { cmd: 'shopt -q login_shell || echo not-login', workdir, shell: '/bin/bash', login: false },
      ctx(),
    );
    expect(plain.output).toBe('not-login\n');
  });

  it('streams output while the command runs', async () => {
    const chunks: string[] = [];
    let settled = false;
    let sawEarlyChunk = false;
    const pending = manager.exec(
      { cmd: 'echo one; sleep 0.3; echo two', workdir, login: false },
      ctx({
        onOutput: (chunk) => {
          chunks.push(chunk);
          if (chunk.includes('one') && !settled) sawEarlyChunk = true;
        },
      }),
    );
    const result = await pending;
    settled = true;
    expect(sawEarlyChunk).toBe(true);
    expect(chunks).toEqual(['one\n', 'two\n']);
    expect(result.output).toBe('one\ntwo\n');
  });

  it('decodes a multi-byte character split across output chunks', async () => {
    const chunks: string[] = [];
    // The euro sign is e2 82 ac; its bytes arrive in two separate writes.
    const result = await manager.exec(
      { cmd: "printf 'a\\342\\202'; sleep 0.2; printf '\\254b\\n'", workdir, login: false },
      ctx({ onOutput: (chunk) => chunks.push(chunk) }),
    );
    expect(chunks).toEqual(['a', '€b\n']);
    expect(result.output).toBe('a€b\n');
  });

  it('truncates long output in the middle and reports the original token count', async () => {
    const full = Array.from({ length: 5000 }, (_, i) => `${i + 1}\n`).join('');
    const result = await manager.exec({ cmd: 'seq 1 5000', workdir, login: false, maxOutputTokens: 100 }, ctx());
    const originalTokens = Math.ceil(Buffer.byteLength(full) / 4);
    expect(result).toMatchObject({ exitCode: 0, output: full, truncated: true, originalTokenCount: originalTokens });
    const body = result.text.slice(result.text.indexOf('\nOutput:\n') + '\nOutput:\n'.length);
    // 100 tokens = 400 bytes: 200 from each end, the rest counted in the marker.
    const head = full.slice(0, 200);
    const tail = full.slice(-200);
    expect(body.startsWith(head) && body.endsWith(tail)).toBe(true);
    const removedTokens = Math.ceil((Buffer.byteLength(full) - 400) / 4);
    expect(body.slice(head.length, body.length - tail.length)).toMatch(
      new RegExp(`^\\n?…${removedTokens} tokens truncated…\\n?$`),
    );
    expect(result.text).toContain(`\nOriginal token count: ${originalTokens}\nOutput:\n`);
  });

  it('retains at most 1 MiB of output per call, head and tail', async () => {
    const result = await manager.exec(
      { cmd: 'echo BEGIN; yes 0123456789 | head -c 3000000; echo END', workdir, login: false, maxOutputTokens: 10 },
      ctx(),
    );
    expect(result.exitCode).toBe(0);
    expect(Buffer.byteLength(result.output)).toBe(1024 * 1024);
    expect(result.output.startsWith('BEGIN\n0123456789\n')).toBe(true);
    expect(result.output.endsWith('\n0123456789\n012END\n')).toBe(true);
    expect(result.originalTokenCount).toBe(Math.ceil((6 + 3_000_000 + 4) / 4));
    // 10 tokens = 40 bytes shown: 20 from the head, 20 from the tail; 3,000,010 bytes in all.
    expect(result.text).toMatch(
      /\nOriginal token count: 750003\nOutput:\nBEGIN\n0123456789\n012\n…749993 tokens truncated…\n9\n0123456789\n012END\n$/,
    );
  });

  it('returns once the command exits even if a background child keeps its output pipe', async () => {
    const result = await manager.exec(
      { cmd: 'sleep 30 & echo started', workdir, login: false, yieldTimeMs: 20_000 },
      ctx(),
    );
    expect(result).toMatchObject({ exitCode: 0, sessionId: null, output: 'started\n' });
    expect(result.wallTimeMs).toBeLessThan(10_000);
  });

  it('filters secrets from the environment and sets terminal and pager variables', async () => {
    const secrets = new ExecSessionManager({
      baseEnv: {
        ...process.env,
        FOO_API_KEY: 'hidden',
        DB_SECRET: 'hidden',
        PGPASSWORD: 'hidden',
        ALLOWED_TOKEN: 'shown',
        NO_COLOR: undefined,
      },
      envPolicy: commandEnvPolicy({ set: { ALLOWED_TOKEN: 'shown' } }),
    });
    const result = await secrets.exec({ cmd: 'env', workdir, login: false, env: { EXTRA_VAR: 'extra' } }, ctx());
    const names = new Map(
      result.output
        .trim()
        .split('\n')
        .map((line) => [line.slice(0, line.indexOf('=')), line.slice(line.indexOf('=') + 1)]),
    );
    expect(names.has('FOO_API_KEY')).toBe(false);
    expect(names.has('DB_SECRET')).toBe(false);
    expect(names.has('PGPASSWORD')).toBe(false);
    expect(names.has('NO_COLOR')).toBe(false);
    expect([
      names.get('ALLOWED_TOKEN'),
      names.get('TERM'),
      names.get('PAGER'),
      names.get('GIT_PAGER'),
      names.get('EXTRA_VAR'),
    ]).toEqual(['shown', 'xterm-256color', 'cat', 'cat', 'extra']);
  });

  it('lets a launcher rewrite argv and env', async () => {
    const seen: string[][] = [];
    const wrapped = new ExecSessionManager({
      launcher: (argv, { env }) => {
        seen.push(argv);
        return { argv: ['/usr/bin/env', 'WRAPPED=yes', ...argv], env: { ...env, FROM_LAUNCHER: '1' } };
      },
    });
    const result = await wrapped.exec(
      { cmd: 'echo "$WRAPPED $FROM_LAUNCHER"', workdir, shell: '/bin/sh', login: false },
      ctx(),
    );
    expect(seen).toEqual([['/bin/sh', '-c', 'echo "$WRAPPED $FROM_LAUNCHER"']]);
    expect(result.output).toBe('yes 1\n');
  });

  it('explains a bad workdir or a missing shell instead of throwing', async () => {
    const missing = await manager.exec({ cmd: 'true', workdir: `${workdir}/nope` }, ctx());
    expect(missing).toMatchObject({ exitCode: null, sessionId: null, pid: null });
    expect(missing.text).toBe(
      `execution error: workdir "${workdir}/nope" does not exist or cannot be read; pass an existing directory.`,
    );
    const relative = await manager.exec({ cmd: 'true', workdir: 'relative/dir' }, ctx());
    expect(relative.text).toContain('is not an absolute path');
    const noShell = await manager.exec({ cmd: 'true', workdir, shell: '/nonexistent/bash' }, ctx());
    expect(noShell.text).toMatch(/^execution error: could not start \/nonexistent\/bash: .*ENOENT/);
  });
});
