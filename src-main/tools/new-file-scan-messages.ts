// What the main thread and the created-file scan's worker (new-file-scan-worker.ts) send each other. The
// worker is this program's own code: its answers are checked for the shape the main thread relies on.
import { z } from 'zod';

/** Main thread → worker: scan `path`, keeping what a diff with `room` characters left can show. */
export const ScanRequest = z.object({ id: z.number().int(), path: z.string(), room: z.number().int().min(0) });
export type ScanRequest = z.infer<typeof ScanRequest>;

/** Worker → main thread: the scan of request `id` (its head's bytes moved, not copied); null: no readable file. */
export const ScanReply = z.object({
  id: z.number().int(),
  scan: z
    .object({
      oid: z.string().regex(/^[0-9a-f]{40}$/),
      binary: z.boolean(),
      lines: z.number().int().min(0),
      head: z.custom<Uint8Array>((value) => value instanceof Uint8Array, 'bytes'),
    })
    .nullable(),
});
export type ScanReply = z.infer<typeof ScanReply>;
