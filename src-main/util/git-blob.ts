// Git's view of a file's bytes, as the turn diff and the fork clean-up need it: the object id a blob of them
// has (SHA-1 repositories), and git's test for a binary file.
import { createHash, type Hash } from 'node:crypto';

/** A SHA-1 started with git's blob header for `size` bytes: feed it the bytes, then `digest('hex')`. */
export function blobHasher(size: number): Hash {
  return createHash('sha1').update(`blob ${size}\0`);
}

/** Git's object id for file content: sha1 of `blob <size>\0<content>`. */
export function blobOid(content: Uint8Array): string {
  return blobHasher(content.length).update(content).digest('hex');
}

/** Bytes git looks at to tell a binary file. */
export const BINARY_PROBE = 8000;

/** git's test: a NUL among the first 8,000 bytes. */
export function looksBinary(bytes: Uint8Array): boolean {
  return bytes.subarray(0, BINARY_PROBE).includes(0);
}
