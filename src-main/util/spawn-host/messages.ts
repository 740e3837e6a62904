// The messages between the host process and its spawn host (host-main.ts), over the fork's IPC channel
// with Node's "advanced" serialization (so output travels as bytes, not as JSON text). Both sides check
// what they receive: a message of the wrong shape is dropped, never acted on.
import { z } from 'zod';

const bytes = z.custom<Uint8Array>((value) => value instanceof Uint8Array, 'expected bytes');
const signalName = z.string().regex(/^SIG[A-Z0-9]+$/);

/** What any start names: the child's id for the life of the connection, and the program to run. */
const command = {
  id: z.number().int().nonnegative(),
  file: z.string().min(1),
  args: z.array(z.string()),
  cwd: z.string().min(1),
  env: z.record(z.string(), z.string()),
};

/** What the host asks of the spawn host. */
export const toSpawnHost = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('start'), ...command, detached: z.boolean(), stdin: z.enum(['ignore', 'pipe']) }),
  /** A command in a pseudo-terminal (node-pty), for interactive programs and the terminal panel. */
  z.object({
    kind: z.literal('startPty'),
    ...command,
    name: z.string(),
    cols: z.number().int().positive(),
    rows: z.number().int().positive(),
  }),
  z.object({
    kind: z.literal('ptyResize'),
    id: z.number().int().nonnegative(),
    cols: z.number().int().positive(),
    rows: z.number().int().positive(),
  }),
  z.object({ kind: z.literal('stdin'), id: z.number().int().nonnegative(), data: bytes }),
  z.object({ kind: z.literal('stdinEnd'), id: z.number().int().nonnegative() }),
  /** Stop reading the child's output (a background process kept the pipes open after the leader exited). */
  z.object({ kind: z.literal('destroy'), id: z.number().int().nonnegative() }),
]);
export type ToSpawnHost = z.infer<typeof toSpawnHost>;

/** What the spawn host reports, in the order it happened. */
export const fromSpawnHost = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('spawned'), id: z.number().int().nonnegative(), pid: z.number().int().positive() }),
  z.object({
    kind: z.literal('failed'),
    id: z.number().int().nonnegative(),
    message: z.string(),
    code: z.string().optional(),
  }),
  z.object({
    kind: z.literal('output'),
    id: z.number().int().nonnegative(),
    fd: z.union([z.literal(1), z.literal(2)]),
    data: bytes,
  }),
  z.object({
    kind: z.literal('exit'),
    id: z.number().int().nonnegative(),
    code: z.number().int().nullable(),
    signal: signalName.nullable(),
  }),
  /** A PTY's command exited, after its output was read to the end; nothing more comes for this id. */
  z.object({
    kind: z.literal('ptyExit'),
    id: z.number().int().nonnegative(),
    exitCode: z.number().int(),
    signal: z.number().int().nullable(),
  }),
  /** Both output pipes have ended; nothing more comes for this id. */
  z.object({
    kind: z.literal('close'),
    id: z.number().int().nonnegative(),
    code: z.number().int().nullable(),
    signal: signalName.nullable(),
  }),
]);
export type FromSpawnHost = z.infer<typeof fromSpawnHost>;
