// Files that hold secrets (API keys, OAuth tokens): written as JSON to a temp file of mode 0600 in the
// same folder, flushed, then renamed over the file, so a reader sees the old content or the new, never a
// part, and no other user can read it at any moment.
import { randomBytes } from 'node:crypto';
import { chmod, mkdir, open, rename, rm } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';

/** Writes `content` as JSON to `file` (mode 0600) atomically; on failure the temp file is removed and the error rethrown. */
export async function writePrivateJson(file: string, content: unknown): Promise<void> {
  const dir = dirname(file);
  const temp = join(dir, `.${basename(file)}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`);
  await mkdir(dir, { recursive: true });
  try {
    const handle = await open(temp, 'wx', 0o600);
    try {
      await handle.writeFile(`${JSON.stringify(content, null, 2)}\n`, 'utf8');
      await handle.sync();
    } finally {
      await handle.close();
    }
    await chmod(temp, 0o600);
    await rename(temp, file);
  } catch (error) {
    await rm(temp, { force: true });
    throw error;
  }
}
