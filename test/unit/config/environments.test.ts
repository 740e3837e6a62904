import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../../src-main/config';
import { environmentPipe } from '../../../src-main/config/environments';
import { tempWeftHome } from './helpers';

let weft: Awaited<ReturnType<typeof tempWeftHome>>;

beforeEach(async () => {
  weft = await tempWeftHome();
});

afterEach(async () => {
  await weft.dispose();
});

const load = () => loadConfig({ weftHome: weft.home, cwd: weft.home, env: {} });

async function loadError(): Promise<ConfigError> {
  const error: unknown = await load().then(
    () => null,
    (e: unknown) => e,
  );
  if (!(error instanceof ConfigError)) throw new Error(`expected a ConfigError, got ${String(error)}`);
  return error;
}

describe('[environments.NAME] in config.toml', () => {
  it('reads ssh and command environments', async () => {
    await weft.write(`# the build box
[environments.box]
ssh = "dev@build-box"
port = 2222
ssh_args = ["-F", "~/work/ssh_config"]
weft = "WEFT_HOME=/data/weft weft"

[environments.pod]
command = ["kubectl", "exec", "-i", "weft-0", "--", "weft", "app-server"]
`);
    const { config } = await load();
    expect(config.environments).toEqual({
      box: {
        ssh: 'dev@build-box',
        port: 2222,
        ssh_args: ['-F', '~/work/ssh_config'],
        weft: 'WEFT_HOME=/data/weft weft',
      },
      pod: { command: ['kubectl', 'exec', '-i', 'weft-0', '--', 'weft', 'app-server'] },
    });
  });

  it('has none by default', async () => {
    expect((await load()).config.environments).toBeUndefined();
  });

  it('needs ssh or command, not both, and ssh keys only with ssh', async () => {
    await weft.write('[environments.none]\nport = 22\n');
    expect((await loadError()).message).toContain(
      '`environments.none` needs `ssh` (a host, such as "dev@build-box") or `command`',
    );
    await weft.write('[environments.both]\nssh = "box"\ncommand = ["sh"]\n');
    expect((await loadError()).message).toContain('`environments.both` has both `ssh` and `command`; keep one');
    await weft.write('[environments.pod]\ncommand = ["kubectl"]\nweft = "weft"\n');
    expect((await loadError()).message).toContain('`environments.pod.weft` applies to ssh environments only');
  });

  it('reports bad values at their line and column', async () => {
    await weft.write('[environments.box]\nssh = "box"\nport = 70000\n');
    const error = await loadError();
    expect([error.line, error.column]).toEqual([3, 1]);
    expect(error.message).toContain('`environments.box.port`');

    await weft.write('[environments.box]\nssh = "-oProxyCommand=touch /tmp/x"\n');
    expect((await loadError()).message).toContain('must name a host, not an ssh option');

    await weft.write('[environments.box]\ncommand = []\n');
    expect((await loadError()).message).toContain('must name a program');

    await weft.write('[environments."my box"]\nssh = "box"\n');
    expect((await loadError()).message).toContain("an environment's name is letters, digits");
  });

  it('warns about unknown keys with a suggestion', async () => {
    await weft.write('[environments.box]\nssh = "box"\nssh_arg = ["-v"]\n');
    expect((await load()).warnings.join('\n')).toContain(
      'unknown key `environments.box.ssh_arg` (did you mean `environments.box.ssh_args`?)',
    );
  });
});

describe('environmentPipe', () => {
  it('runs ssh in batch mode with the extra arguments first, so they win', () => {
    expect(
      environmentPipe('box', { ssh: 'dev@box', port: 2222, ssh_args: ['-F', 'cfg'], weft: 'WEFT_HOME=/d weft' }),
    ).toEqual({
      name: 'box',
      host: 'dev@box',
      argv: [
        'ssh',
        '-F',
        'cfg',
        '-p',
        '2222',
        '-T',
        '-o',
        'BatchMode=yes',
        '-o',
        'ConnectTimeout=15',
        '-o',
        'ServerAliveInterval=15',
        '--',
        'dev@box',
        'WEFT_HOME=/d weft app-server --attach',
      ],
    });
  });

  it('starts a command as given', () => {
    expect(environmentPipe('pod', { command: ['kubectl', 'exec', '-i', 'p', '--', 'weft', 'app-server'] })).toEqual({
      name: 'pod',
      host: null,
      argv: ['kubectl', 'exec', '-i', 'p', '--', 'weft', 'app-server'],
    });
  });
});
