// `review/start` (Codex's shapes): a review turn on a thread. Weft computes the target's diff itself and
// sends it to the reviewer in one request; the findings come back as an `exitedReviewMode` item.
import { z } from 'zod';
import { lazySchema } from './lazy-schema';
import { Turn } from './thread';

/** What to review. `commit.title`: a label for UIs (the commit's subject). */
export const ReviewTarget = lazySchema(() =>
  z.discriminatedUnion('type', [
    z.object({ type: z.literal('uncommittedChanges') }),
    z.object({ type: z.literal('baseBranch'), branch: z.string().min(1) }),
    z.object({ type: z.literal('commit'), sha: z.string().min(1), title: z.string().nullish() }),
    z.object({ type: z.literal('custom'), instructions: z.string().min(1) }),
  ]),
);
export type ReviewTarget = z.infer<typeof ReviewTarget>;

/** Reviews run inline on the given thread (the only delivery Codex 0.169 offers); omitted = inline. */
export const ReviewDelivery = lazySchema(() => z.enum(['inline']));
export type ReviewDelivery = z.infer<typeof ReviewDelivery>;

export const ReviewStartParams = lazySchema(() =>
  z.object({
    threadId: z.string().min(1),
    target: ReviewTarget,
    delivery: ReviewDelivery.nullish(),
  }),
);
export type ReviewStartParams = z.infer<typeof ReviewStartParams>;

/** `reviewThreadId`: the thread the review runs on (the one given). */
export const ReviewStartResult = lazySchema(() => z.object({ turn: Turn, reviewThreadId: z.string() }));
export type ReviewStartResult = z.infer<typeof ReviewStartResult>;
