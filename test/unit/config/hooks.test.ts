// Hook discovery and identity: the key and hash Codex 0.169 gives a hook (so trust recorded by either is read
// by the other), both sources of a folder (hooks.json and config.toml's [hooks]), trust states, and errors
// that name the file and the key.
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { discoverHooks, hookActionLabel } from '../../../src-main/config/hooks/discover';
import { hookHash, hookKey } from '../../../src-main/config/hooks/identity';
import { makeTempWorkspace, makeWeftHome, type TempWorkspace, type WeftHome } from '../../support/workspace';

let home: WeftHome;
let ws: TempWorkspace;

beforeEach(async () => {
  home = await makeWeftHome('');
  ws = await makeTempWorkspace({});
});

afterEach(async () => {
  await ws.cleanup();
  await home.cleanup();
});

const noProject = () => ({ root: ws.dir, trusted: null, files: [] });

describe('a hook’s identity', () => {
  it('is Codex’s: hooks/list of Codex 0.169 gave these hashes for these hooks', () => {
    // Codex listed `/work/codex-hooks-home/save-stdin.mjs SessionStart` (timeout 30, in hooks.json) as
    // sha256:2d07…, and the PreToolUse hook with matcher "Bash" as sha256:fb2d… (before its paths were
    // replaced in test/fixtures/codex-hooks-0.169/trust.json).
    const base = { timeoutSec: 30, async: false, statusMessage: null };
    expect(
      hookHash({
        ...base,
        event: 'SessionStart',
        matcher: null,
        action: { type: 'command', command: '/work/codex-hooks-home/save-stdin.mjs SessionStart' },
      }),
    ).toBe('sha256:2d074ae5b608a43d2fd4231092eeb72b385055776312fd8f89729106c1e03b40');
    expect(
      hookHash({
        ...base,
        event: 'PreToolUse',
        matcher: 'Bash',
        action: { type: 'command', command: '/work/codex-hooks-home/save-stdin.mjs PreToolUse' },
      }),
    ).toBe('sha256:fb2d7c772b8610b9d74ac74373394f05322697a430c2f34fe2773476f0fcd7e3');
    expect(hookKey('/home/dev/.codex/hooks.json', 'UserPromptSubmit', 0, 0)).toBe(
      '/home/dev/.codex/hooks.json:user_prompt_submit:0:0',
    );
  });
});

describe('discoverHooks', () => {
  it('reads hooks.json and config.toml’s [hooks] of WEFT_HOME, with each hook’s trust', async () => {
    await writeFile(
      join(home.dir, 'hooks.json'),
      JSON.stringify({ hooks: { Stop: [{ hooks: [{ type: 'command', command: 'echo stop', timeout: 5 }] }] } }),
    );
    const stopKey = `${join(home.dir, 'hooks.json')}:stop:0:0`;
    const stopHash = hookHash({
      event: 'Stop',
      matcher: null,
      action: { type: 'command', command: 'echo stop' },
      timeoutSec: 5,
      async: false,
      statusMessage: null,
    });
    await writeFile(
      join(home.dir, 'config.toml'),
      [
        '[[hooks.PreToolUse]]',
        'matcher = "Bash"',
        '[[hooks.PreToolUse.hooks]]',
        'type = "command"',
        'command = "./check.sh"',
        '',
        `[hooks.state."${stopKey}"]`,
        `trusted_hash = "${stopHash}"`,
        '',
        `[hooks.state."${join(home.dir, 'config.toml')}:pre_tool_use:0:0"]`,
        `trusted_hash = "sha256:${'0'.repeat(64)}"`,
        '',
      ].join('\n'),
    );
    const found = await discoverHooks({ weftHome: home.dir, cwd: ws.dir, env: {}, projectTrust: noProject() });
    expect(found.errors).toEqual([]);
    expect(
      found.hooks.map((h) => [h.event, h.matcher, hookActionLabel(h.action), h.timeoutSec, h.trustStatus, h.source]),
    ).toEqual([
      ['Stop', null, 'echo stop', 5, 'trusted', 'user'],
      ['PreToolUse', 'Bash', './check.sh', 600, 'modified', 'user'],
    ]);
    expect(found.warnings).toEqual([
      `hooks are set in both ${join(home.dir, 'hooks.json')} and ${join(home.dir, 'config.toml')}; both are read (prefer one of them per folder)`,
    ]);
  });

  it('skips what does not parse, naming the file and the key, and keeps the rest', async () => {
    await writeFile(
      join(home.dir, 'hooks.json'),
      JSON.stringify({
        hooks: {
          PreToolUse: [{ matcher: 'Bash', hooks: [{ type: 'command', command: '' }] }],
          BeforeLunch: [],
          Stop: [{ hooks: [{ type: 'command', command: 'echo ok' }] }],
        },
      }),
    );
    const found = await discoverHooks({ weftHome: home.dir, cwd: ws.dir, env: {}, projectTrust: noProject() });
    const file = join(home.dir, 'hooks.json');
    expect(found.errors).toEqual([
      { path: file, message: 'hooks.PreToolUse[0].hooks[0].command: must be the command to run' },
      {
        path: file,
        message:
          'hooks.BeforeLunch: "BeforeLunch" is not a hook event; use one of SessionStart, SessionEnd, UserPromptSubmit, PreToolUse, PermissionRequest, PostToolUse, PreCompact, PostCompact, SubagentStart, SubagentStop, Stop, Interrupt',
      },
    ]);
    expect(found.hooks.map((h) => hookActionLabel(h.action))).toEqual(['echo ok']);
  });

  it('reads a project’s .weft/hooks.json only when the project is trusted', async () => {
    await mkdir(join(ws.dir, '.weft'), { recursive: true });
    await writeFile(
      join(ws.dir, '.weft', 'hooks.json'),
      JSON.stringify({ hooks: { Stop: [{ hooks: [{ type: 'command', command: 'echo project' }] }] } }),
    );
    const untrusted = await discoverHooks({ weftHome: home.dir, cwd: ws.dir, env: {}, projectTrust: noProject() });
    expect(untrusted.hooks).toEqual([]);
    const trusted = await discoverHooks({
      env: {},
      weftHome: home.dir,
      cwd: ws.dir,
      projectTrust: { root: ws.dir, trusted: true, files: [] },
    });
    expect(trusted.hooks.map((h) => [hookActionLabel(h.action), h.source, h.trustStatus])).toEqual([
      ['echo project', 'project', 'untrusted'],
    ]);
  });
});

describe('discoverHooks with Codex’s home', () => {
  const stopHook = (command: string) =>
    JSON.stringify({ hooks: { Stop: [{ hooks: [{ type: 'command', command }] }] } });

  it('reads $CODEX_HOME (else ~/.codex) only when the user’s config.toml says [codex] read_config = true', async () => {
    const fakeHome = join(ws.dir, 'home');
    await mkdir(join(fakeHome, '.codex'), { recursive: true });
    await writeFile(join(fakeHome, '.codex', 'hooks.json'), stopHook('echo from-dot-codex'));
    const elsewhere = join(ws.dir, 'codex-home');
    await mkdir(elsewhere);
    await writeFile(join(elsewhere, 'hooks.json'), stopHook('echo from-codex-home'));
    const labels = async (env: NodeJS.ProcessEnv) => {
      const found = await discoverHooks({ weftHome: home.dir, cwd: ws.dir, env, projectTrust: noProject() });
      expect(found.errors).toEqual([]);
      return found.hooks.map((h) => [hookActionLabel(h.action), h.sourcePath, h.source, h.trustStatus]);
    };
    expect(await labels({ HOME: fakeHome })).toEqual([]);
    // A project cannot turn it on: only the user's file is read for the switch.
    await mkdir(join(ws.dir, '.weft'), { recursive: true });
    await writeFile(join(ws.dir, '.weft', 'config.toml'), '[codex]\nread_config = true\n');
    expect(await labels({ HOME: fakeHome })).toEqual([]);
    await writeFile(join(home.dir, 'config.toml'), '[codex]\nread_config = true\n');
    expect(await labels({ HOME: fakeHome })).toEqual([
      ['echo from-dot-codex', join(fakeHome, '.codex', 'hooks.json'), 'user', 'untrusted'],
    ]);
    expect(await labels({ HOME: fakeHome, CODEX_HOME: elsewhere })).toEqual([
      ['echo from-codex-home', join(elsewhere, 'hooks.json'), 'user', 'untrusted'],
    ]);
  });
});
