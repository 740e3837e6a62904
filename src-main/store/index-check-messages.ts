// What the start-up index check's worker (index-check-worker.ts) sends the main thread (what it is sent is in
// index-check-request.ts, without zod, which the worker does not load). The worker is this program's own
// code: what it sends is checked for its kind and the shape the main thread relies on, not field by field.
import { z } from 'zod';
import type { IndexChange, RepairReport } from './repair';
import type { ThreadSummary } from './index-scan';

const summary = z.custom<ThreadSummary>(
  (value) => typeof value === 'object' && value !== null && 'id' in value && typeof value.id === 'string',
  'a thread summary',
);

const fileRow = z.object({ id: z.string(), path: z.string(), file_size: z.number(), file_mtime_ms: z.number() });

const report = z.object({
  indexed: z.number(),
  removed: z.number(),
  files: z.number(),
  warnings: z.array(z.string()),
  cancelled: z.boolean(),
}) satisfies z.ZodType<RepairReport>;

/** Worker → main thread: rows to write (in order), then the report, or the error that ended the check. */
export const IndexCheckMessage = z.discriminatedUnion('type', [
  z.object({
    type: z.literal('change'),
    change: z.object({
      upserts: z.array(z.object({ summary, seen: fileRow.nullable() })),
      removed: z.array(z.string()),
    }) satisfies z.ZodType<IndexChange>,
  }),
  z.object({ type: z.literal('done'), report }),
  z.object({ type: z.literal('failed'), message: z.string(), code: z.string().nullable() }),
]);
export type IndexCheckMessage = z.infer<typeof IndexCheckMessage>;
