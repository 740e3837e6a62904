// What `weft exec` reads and writes beside the thread, here or through an environment: the prompt from stdin,
// the output schema, the images given, the last message's file.
import { readFile, rename, writeFile } from 'node:fs/promises';
import { z } from 'zod';
import type { UserInput } from '../../src-preload/protocol';
import { loadLocalImage } from '../tools/local-image';
import { errorMessage } from '../util/errors';

/** A problem with what `weft exec` was given (a file, an image), told to the user as it is. */
export class ExecInputError extends Error {}

/** The prompt piped in on stdin; null when stdin is a terminal or says nothing. */
export async function readStdinPrompt(): Promise<string | null> {
  if (process.stdin.isTTY) return null;
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(typeof chunk === 'string' ? Buffer.from(chunk) : chunk);
  const text = Buffer.concat(chunks).toString('utf8').trim();
  return text === '' ? null : text;
}

/** `--output-schema FILE`: a JSON object (a JSON Schema) the final answer must follow. */
export async function readOutputSchema(path: string): Promise<Record<string, unknown>> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    throw new ExecInputError(`cannot read the output schema ${path}: ${errorMessage(error)}`);
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new ExecInputError(`the output schema ${path} is not valid JSON: ${errorMessage(error)}`);
  }
  const schema = z.record(z.string(), z.unknown()).safeParse(value);
  if (!schema.success) throw new ExecInputError(`the output schema ${path} must be a JSON object (a JSON Schema)`);
  return schema.data;
}

/**
 * `--image FILE`: each image as input the model sees, read here (a data URL, which a remote environment
 * takes as it is), before the prompt.
 */
export async function imageInputs(paths: readonly string[], cwd: string): Promise<UserInput[]> {
  const input: UserInput[] = [];
  for (const path of paths) {
    const loaded = await loadLocalImage(path, cwd);
    if (!loaded.ok) throw new ExecInputError(`--image: ${loaded.error}`);
    input.push({ type: 'image', url: loaded.url });
  }
  return input;
}

/** Writes `text` to `path` whole or not at all. */
export async function writeFileAtomic(path: string, text: string): Promise<void> {
  const temp = `${path}.${process.pid}.tmp`;
  await writeFile(temp, text);
  await rename(temp, path);
}
