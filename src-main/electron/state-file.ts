// Small JSON files of desktop state (window bounds, recent projects, encrypted secrets) under Electron's
// userData or WEFT_HOME. Written atomically (temp file + rename) so a crash never leaves half a file.
import { mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';

/** Where a store keeps its document; injected so tests can use memory. */
export interface JsonStore {
  /** The parsed document, or undefined when there is none yet. Throws on unreadable JSON. */
  read(): Promise<unknown>;
  write(value: unknown): Promise<void>;
}

export interface JsonFileOptions {
  /** File mode for new files; 0o600 for anything secret. */
  mode?: number;
}

/** A JSON file store. Writes are queued, so the last `write` called is the one left on disk. */
export function jsonFile(path: string, options: JsonFileOptions = {}): JsonStore {
  let counter = 0;
  let queue: Promise<void> = Promise.resolve();
  const writeNow = async (value: unknown): Promise<void> => {
    await mkdir(dirname(path), { recursive: true });
    const temp = `${path}.${process.pid}.${++counter}.tmp`;
    try {
      await writeFile(temp, `${JSON.stringify(value, null, 2)}\n`, { mode: options.mode ?? 0o644 });
      await rename(temp, path);
    } catch (error) {
      await rm(temp, { force: true });
      throw error;
    }
  };
  return {
    async read() {
      let text: string;
      try {
        text = await readFile(path, 'utf8');
      } catch (error) {
        if (error instanceof Error && 'code' in error && error.code === 'ENOENT') return undefined;
        throw error;
      }
      try {
        return JSON.parse(text);
      } catch (error) {
        throw new Error(`${path} is not valid JSON (${error instanceof Error ? error.message : String(error)}).`, {
          cause: error,
        });
      }
    },
    write(value) {
      const result = queue.then(() => writeNow(value));
      queue = result.catch(() => undefined);
      return result;
    },
  };
}

/** An in-memory store (tests, or when userData is unavailable). */
export function memoryStore(initial?: unknown): JsonStore & { readonly current: unknown } {
  let current = initial;
  return {
    get current() {
      return current;
    },
    read: () => Promise.resolve(current === undefined ? undefined : structuredClone(current)),
    write: (value) => {
      current = structuredClone(value);
      return Promise.resolve();
    },
  };
}
