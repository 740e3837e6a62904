// The messages between the host process and its spawn host (host-main.ts), over the fork's IPC channel
// with Node's "advanced" serialization (so output travels as bytes, not as JSON text). Both sides check
// what they receive: a message of the wrong shape is dropped, never acted on.
//
// Written with zod's tree-shakable "mini" API: the spawn host is started with every host, and it loads
// only the checks used here instead of the whole of zod.
import { z } from 'zod/mini';

const bytes = z.custom<Uint8Array>((value) => value instanceof Uint8Array, 'expected bytes');
const signalName = z.string().check(z.regex(/^SIG[A-Z0-9]+$/));
const childId = z.number().check(z.int(), z.nonnegative());
const positive = z.number().check(z.int(), z.positive());
const integer = z.number().check(z.int());

/** What any start names: the child's id for the life of the connection, and the program to run. */
const command = {
  id: childId,
  file: z.string().check(z.minLength(1)),
  args: z.array(z.string()),
  cwd: z.string().check(z.minLength(1)),
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
    cols: positive,
    rows: positive,
  }),
  z.object({
    kind: z.literal('ptyResize'),
    id: childId,
    cols: positive,
    rows: positive,
  }),
  z.object({ kind: z.literal('stdin'), id: childId, data: bytes }),
  z.object({ kind: z.literal('stdinEnd'), id: childId }),
  /** Stop reading the child's output (a background process kept the pipes open after the leader exited). */
  z.object({ kind: z.literal('destroy'), id: childId }),
]);
export type ToSpawnHost = z.infer<typeof toSpawnHost>;

/** What the spawn host reports, in the order it happened. */
export const fromSpawnHost = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('spawned'), id: childId, pid: positive }),
  z.object({
    kind: z.literal('failed'),
    id: childId,
    message: z.string(),
    code: z.optional(z.string()),
  }),
  z.object({
    kind: z.literal('output'),
    id: childId,
    fd: z.union([z.literal(1), z.literal(2)]),
    data: bytes,
  }),
  z.object({
    kind: z.literal('exit'),
    id: childId,
    code: z.nullable(integer),
    signal: z.nullable(signalName),
  }),
  /** A PTY's command exited, after its output was read to the end; nothing more comes for this id. */
  z.object({
    kind: z.literal('ptyExit'),
    id: childId,
    exitCode: integer,
    signal: z.nullable(integer),
  }),
  /** Both output pipes have ended; nothing more comes for this id. */
  z.object({
    kind: z.literal('close'),
    id: childId,
    code: z.nullable(integer),
    signal: z.nullable(signalName),
  }),
]);
export type FromSpawnHost = z.infer<typeof fromSpawnHost>;
