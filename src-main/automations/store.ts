// The automation files under `WEFT_HOME/automations/`: one `<id>.toml` each, written by Weft with comments
// a person can follow and edited in place afterwards (the comment-keeping TOML editor of the config), so
// what the person wrote or changed by hand stays as they wrote it.
import { randomBytes } from 'node:crypto';
import { link, mkdir, readdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { tomlValue } from '../config/toml-value';
import { deleteInText, setInText } from '../config/toml-edit';
import {
  AUTOMATION_ID,
  isBroken,
  parseAutomation,
  type Automation,
  type AutomationFile,
  type BrokenAutomation,
} from './record';

export function automationsDir(weftHome: string): string {
  return join(weftHome, 'automations');
}

export function automationFile(weftHome: string, id: string): string {
  return join(automationsDir(weftHome), `${id}.toml`);
}

/** A refusal a person can act on: a bad id or value, an automation that is not there. */
export class AutomationError extends Error {
  override readonly name = 'AutomationError';
}

/** Every automation file, in id order; a file that cannot be used is listed as broken with its reason. */
export async function listAutomations(weftHome: string): Promise<(Automation | BrokenAutomation)[]> {
  let names: string[];
  try {
    names = await readdir(automationsDir(weftHome));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw error;
  }
  const ids = names
    .filter((n) => n.endsWith('.toml'))
    .map((n) => n.slice(0, -'.toml'.length))
    .filter((id) => AUTOMATION_ID.test(id))
    .sort();
  return Promise.all(ids.map((id) => readAutomation(weftHome, id)));
}

export async function readAutomation(weftHome: string, id: string): Promise<Automation | BrokenAutomation> {
  checkId(id);
  const file = automationFile(weftHome, id);
  let text: string;
  let modifiedAt: number;
  try {
    [text, modifiedAt] = await Promise.all([readFile(file, 'utf8'), stat(file).then((s) => s.mtimeMs)]);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT')
      throw new AutomationError(`there is no automation "${id}" (no file ${file}); see weft automations list`);
    throw error;
  }
  return parseAutomation(id, file, text, modifiedAt);
}

/** The automation, or an error saying why its file cannot be used. */
export async function usableAutomation(weftHome: string, id: string): Promise<Automation> {
  const found = await readAutomation(weftHome, id);
  if (isBroken(found)) throw new AutomationError(found.problem);
  return found;
}

function checkId(id: string): void {
  if (!AUTOMATION_ID.test(id))
    throw new AutomationError(
      `"${id}" is not an automation id: lower-case letters, digits and dashes, 64 at most, starting with a letter or digit`,
    );
}

/** An id for a new automation from its name: its words in lower case, `-2`… when taken. */
export async function newAutomationId(weftHome: string, name: string): Promise<string> {
  const base =
    name
      .toLowerCase()
      .normalize('NFKD')
      .replace(/[^a-z0-9]+/g, '-')
      .replace(/^-+|-+$/g, '')
      .slice(0, 56) || 'automation';
  const taken = new Set((await listAutomations(weftHome)).map((a) => a.id));
  for (let n = 1; ; n++) {
    const id = n === 1 ? base : `${base}-${n}`;
    if (!taken.has(id)) return id;
  }
}

/** Writes a new automation file (refused when the id is taken); the file explains its keys. */
export async function createAutomation(weftHome: string, id: string, record: AutomationFile): Promise<Automation> {
  checkId(id);
  const file = automationFile(weftHome, id);
  const text = automationText(record);
  const parsed = parseAutomation(id, file, text, Date.now());
  if (isBroken(parsed)) throw new AutomationError(parsed.problem);
  await mkdir(automationsDir(weftHome), { recursive: true });
  await atomicWrite(file, text, 'new');
  return parsed;
}

/**
 * Sets (a value) or removes (`null`) top-level keys or `trigger.*` keys in place, keeping every comment
 * and the order of the rest; refused, with nothing written, when the result would not be a valid
 * automation.
 */
export async function updateAutomation(
  weftHome: string,
  id: string,
  changes: readonly { path: readonly string[]; value: unknown }[],
): Promise<Automation> {
  checkId(id);
  const file = automationFile(weftHome, id);
  let text = await readFile(file, 'utf8').catch((error: unknown) => {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT')
      throw new AutomationError(`there is no automation "${id}" (no file ${file}); see weft automations list`);
    throw error;
  });
  for (const change of changes)
    text = change.value === null ? deleteInText(text, change.path) : setInText(text, change.path, change.value);
  const parsed = parseAutomation(id, file, text, Date.now());
  if (isBroken(parsed)) throw new AutomationError(`not changed: ${parsed.problem}`);
  await atomicWrite(file, text, 'replace');
  return parsed;
}

/** Removes the automation's file and its run history (the threads and worktrees of its runs stay). */
export async function removeAutomation(weftHome: string, id: string): Promise<void> {
  checkId(id);
  const file = automationFile(weftHome, id);
  try {
    await rm(file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT')
      throw new AutomationError(`there is no automation "${id}" (no file ${file}); see weft automations list`);
    throw error;
  }
  await rm(join(automationsDir(weftHome), `${id}.runs.jsonl`), { force: true });
}

/** The text of a new automation file: each key with a line saying what it does. */
export function automationText(record: AutomationFile): string {
  const line = (key: string, value: unknown): string => `${key} = ${tomlValue(value)}\n`;
  let text = '# A Weft automation: the agent runs `prompt` in `project` on the trigger below.\n';
  text += '# Edit freely; `weft automations list` says when a change cannot be used.\n';
  text += line('name', record.name);
  text += line('project', record.project);
  text += line('prompt', record.prompt);
  text += '# false: kept with its history, never run on its trigger\n';
  text += line('enabled', record.enabled);
  text += '# "worktree": each run in a new git worktree of the project; "local": in the project itself\n';
  text += line('environment', record.environment);
  if (record.remote !== undefined) {
    text += '# the remote environment ([environments.NAME] of config.toml) it runs on; `project` is there\n';
    text += line('remote', record.remote);
  }
  if (record.model !== undefined) text += line('model', record.model);
  if (record.effort !== undefined) text += line('effort', record.effort);
  text += '# what its commands may write; it never asks anyone (approval policy "never")\n';
  text += line('sandbox', record.sandbox);
  text += '# tell when a run ends: "always", "changes" (it failed or changed files), "never"\n';
  text += line('notify', record.notify ?? 'changes');
  if (record.created_at !== undefined) text += line('created_at', record.created_at);
  text += '\n[trigger]\n';
  if (record.trigger.type === 'schedule') {
    text += "# cron: minute hour day-of-month month day-of-week, in `timezone` (omitted: the machine's)\n";
    text += line('type', 'schedule');
    text += line('cron', record.trigger.cron);
    if (record.trigger.timezone !== undefined) text += line('timezone', record.trigger.timezone);
  } else if (record.trigger.type === 'commit') {
    text += '# commit: a new commit on `branch` of the project starts it (git is polled)\n';
    text += line('type', 'commit');
    text += line('branch', record.trigger.branch);
  } else if (record.trigger.type === 'fileChange') {
    text += '# fileChange: a change under `path` (in the project; omitted: anywhere) starts it, once quiet\n';
    text += '# for `debounce_seconds` (omitted: 10)\n';
    text += line('type', 'fileChange');
    if (record.trigger.path !== undefined) text += line('path', record.trigger.path);
    if (record.trigger.debounce_seconds !== undefined)
      text += line('debounce_seconds', record.trigger.debounce_seconds);
  } else {
    text += '# manual: only "Run now" starts it\n';
    text += line('type', 'manual');
  }
  return text;
}

/** Temp file, then rename (`replace`) or hard link (`new`: fails when the name is taken, atomically). */
async function atomicWrite(file: string, text: string, mode: 'new' | 'replace'): Promise<void> {
  const temp = `${file}.${randomBytes(6).toString('hex')}.tmp`;
  await writeFile(temp, text, { flag: 'wx' });
  try {
    if (mode === 'replace') await rename(temp, file);
    else
      await link(temp, file).catch((error: unknown) => {
        if ((error as NodeJS.ErrnoException).code === 'EEXIST')
          throw new AutomationError(`an automation file ${file} exists already; choose another id`);
        throw error;
      });
  } finally {
    await rm(temp, { force: true });
  }
}
