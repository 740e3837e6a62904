import { afterEach, describe, expect, it } from 'vitest';
import { ConfigError, overrideValue, parseOverride } from '../../../src-main/config';
import { FileKeyStore } from '../../../src-main/config/key-store';
import { RuleStore } from '../../../src-main/safety/approvals/rules';
import { threadConfig } from '../../../src-main/server/thread-factory';
import { makeWeftHome, type WeftHome } from '../../support/workspace';

describe('parseOverride', () => {
  it('reads the value as TOML', () => {
    expect(parseOverride('model_reasoning_effort="high"')).toEqual({
      flag: 'model_reasoning_effort="high"',
      path: ['model_reasoning_effort'],
      value: 'high',
    });
    expect(parseOverride('sandbox_workspace_write.network_access=true')).toEqual({
      flag: 'sandbox_workspace_write.network_access=true',
      path: ['sandbox_workspace_write', 'network_access'],
      value: true,
    });
    expect(parseOverride('sandbox_workspace_write.writable_roots=["/a", "/b"]').value).toEqual(['/a', '/b']);
    expect(parseOverride('model_context_window=200000').value).toBe(200000);
    expect(parseOverride('shell_environment_policy.set={ CI = "1" }').value).toEqual({ CI: '1' });
  });

  it('falls back to the text itself when it is not a TOML value', () => {
    expect(parseOverride('model=gpt-5')).toEqual({ flag: 'model=gpt-5', path: ['model'], value: 'gpt-5' });
    expect(parseOverride('instructions = Be brief, please ').value).toBe('Be brief, please');
    expect(parseOverride('model=').value).toBe('');
    expect(parseOverride('model="a"\nother = 1').value).toBe('"a"\nother = 1');
  });

  it('accepts quoted key segments, with "=" inside them', () => {
    expect(parseOverride('projects."/home/me/a=b".trust_level=trusted')).toEqual({
      flag: 'projects."/home/me/a=b".trust_level=trusted',
      path: ['projects', '/home/me/a=b', 'trust_level'],
      value: 'trusted',
    });
  });

  it('rejects flags that are not key=value, naming the flag', () => {
    const attempt = (flag: string): unknown => {
      try {
        parseOverride(flag);
        return null;
      } catch (error) {
        return error instanceof ConfigError ? error.message : error;
      }
    };
    expect(attempt('model')).toBe(
      'invalid -c override "model": expected key=value, e.g. -c model=gpt-5.1-codex or -c sandbox_workspace_write.network_access=true',
    );
    expect(attempt('=gpt-5')).toBe(
      'invalid -c override "=gpt-5": the key before "=" is empty; e.g. -c model=gpt-5.1-codex or -c sandbox_workspace_write.network_access=true',
    );
    expect(attempt('sandbox..mode=x')).toBe(
      'invalid -c override "sandbox..mode=x": "sandbox..mode" is not a key path; write dotted keys such as sandbox_workspace_write.network_access',
    );
    expect(attempt('__proto__.polluted=1')).toBe(
      'invalid -c override "__proto__.polluted=1": "__proto__" cannot be used as a key',
    );
  });
});

describe('overrides given as values', () => {
  let home: WeftHome | null = null;
  afterEach(async () => {
    await home?.cleanup();
    home = null;
  });

  it('keep the value as given, where a TOML round trip would mangle it', async () => {
    expect(overrideValue('sandbox_workspace_write.network_access', true)).toEqual({
      flag: 'sandbox_workspace_write.network_access=true',
      path: ['sandbox_workspace_write', 'network_access'],
      value: true,
    });
    home = await makeWeftHome('');
    const host = {
      weftHome: home.dir,
      env: {},
      defaultCwd: home.dir,
      rules: new RuleStore(home.dir),
      log: () => undefined,
      keyStore: new FileKeyStore(home.dir),
    };
    // DEL is not allowed in a TOML string: as a `-c` flag the quotes would have become part of the text.
    const instructions = 'Be brief.\u007f And "exact".';
    const { loaded } = await threadConfig(
      host,
      {
        developerInstructions: instructions,
        config: { 'shell_environment_policy.set': { CI: '1' }, model_context_window: 200000 },
      },
      home.dir,
    );
    expect(loaded.config.developer_instructions).toBe(instructions);
    expect(loaded.config.shell_environment_policy?.set).toEqual({ CI: '1' });
    expect(loaded.config.model_context_window).toBe(200000);
    expect(loaded.origins.get('developer_instructions')).toBe('-c developer_instructions');
  });

  it('reject a key that is not a key path, naming it', () => {
    expect(() => overrideValue('a..b', 1)).toThrow(/"a\.\.b" is not a key path/);
  });
});
