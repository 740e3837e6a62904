// Automation files: written with comments, edited in place with the person's own comments kept, refused
// with the key and the reason when a change would not be usable, listed with the reason when broken.
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { nextFire } from '../../../src-main/automations/cron';
import {
  automationFile,
  createAutomation,
  listAutomations,
  newAutomationId,
  updateAutomation,
} from '../../../src-main/automations/store';

let home: string;

beforeEach(async () => {
  home = await mkdtemp(join(tmpdir(), 'weft-auto-store-'));
});

afterEach(async () => {
  await rm(home, { recursive: true, force: true });
});

const RECORD = {
  name: 'Morning triage',
  project: '/srv/project',
  prompt: "Summarise yesterday's commits",
  enabled: true,
  environment: 'worktree' as const,
  sandbox: 'workspace-write' as const,
  trigger: { type: 'schedule' as const, cron: '0 9 * * 1-5', timezone: 'Europe/Paris' },
};

describe('automation files', () => {
  it('keeps a comment the person added when a key is changed', async () => {
    await createAutomation(home, 'morning-triage', RECORD);
    const file = automationFile(home, 'morning-triage');
    const text = await readFile(file, 'utf8');
    await writeFile(file, text.replace('enabled = true', '# paused during the freeze\nenabled = true'));
    const changed = await updateAutomation(home, 'morning-triage', [
      { path: ['enabled'], value: false },
      { path: ['trigger', 'cron'], value: '30 8 * * *' },
    ]);
    expect(changed).toMatchObject({ enabled: false, trigger: { cron: '30 8 * * *', timezone: 'Europe/Paris' } });
    const after = await readFile(file, 'utf8');
    expect(after).toContain('# paused during the freeze\nenabled = false\n');
    expect(after).toContain('cron = "30 8 * * *"\n');
  });

  it('refuses a change that would break the file, naming the key, and writes nothing', async () => {
    await createAutomation(home, 'morning-triage', RECORD);
    const file = automationFile(home, 'morning-triage');
    const before = await readFile(file, 'utf8');
    await expect(
      updateAutomation(home, 'morning-triage', [{ path: ['trigger', 'timezone'], value: 'Mars/Olympus' }]),
    ).rejects.toThrow(
      `not changed: ${file}: trigger.timezone: timezone "Mars/Olympus" is not an IANA time zone (for example "Europe/Paris", "America/New_York" or "UTC")`,
    );
    expect(await readFile(file, 'utf8')).toBe(before);
  });

  it('lists a file edited into something unusable with the reason, beside the good ones', async () => {
    await createAutomation(home, 'morning-triage', RECORD);
    await writeFile(
      join(home, 'automations', 'broken.toml'),
      'name = "x"\nproject = "relative/path"\nprompt = "p"\n[trigger]\ntype = "schedule"\ncron = "* * *"\n',
    );
    const listed = await listAutomations(home);
    expect(listed.map((a) => ('problem' in a ? a.problem : a.id))).toEqual([
      `${join(home, 'automations', 'broken.toml')}: project: give the project as an absolute path (and 1 more problem)`,
      'morning-triage',
    ]);
    expect(await newAutomationId(home, 'Morning triage!')).toBe('morning-triage-2');
  });

  it("computes the next run in the automation's time zone", () => {
    // 09:00 in Paris in March (UTC+1) is 08:00 UTC.
    expect(
      new Date(nextFire('0 9 * * 1-5', 'Europe/Paris', Date.parse('2026-03-05T08:30:00Z')) ?? 0).toISOString(),
    ).toBe('2026-03-06T08:00:00.000Z');
  });
});
