// The live view of a thread's browser (Weft): a client that watches it (`weft/browser/live/start`) is sent the
// page's picture as it changes (`weft/browser/live/frame`, JPEG) until it stops watching or lets go of the
// connection, and `weft/browser/live/closed` when the browser has no page any more; a person's clicks, wheel
// and keys go into the page with `weft/browser/live/input`. Only to the connection that watches: frames are
// never recorded in the rollout.
import { z } from 'zod';
import { lazySchema } from './lazy-schema';

export const WeftBrowserLiveStartParams = lazySchema(() => z.object({ threadId: z.string().min(1) }));
export type WeftBrowserLiveStartParams = z.infer<typeof WeftBrowserLiveStartParams>;

/** `page`: whether the browser shows a page now (the first frame follows); false: frames come once it does. */
export const WeftBrowserLiveStartResult = lazySchema(() => z.object({ page: z.boolean(), url: z.string().nullable() }));
export type WeftBrowserLiveStartResult = z.infer<typeof WeftBrowserLiveStartResult>;

export const WeftBrowserLiveStopParams = lazySchema(() => z.object({ threadId: z.string().min(1) }));
export type WeftBrowserLiveStopParams = z.infer<typeof WeftBrowserLiveStopParams>;
export const WeftBrowserLiveStopResult = lazySchema(() => z.object({}));
export type WeftBrowserLiveStopResult = z.infer<typeof WeftBrowserLiveStopResult>;

/** A coordinate in the page's CSS pixels: the frame's `width` × `height` (the browser's viewport). */
const coordinate = () => z.number().finite().min(0).max(100_000);
/** A key by its name, as the page's `KeyboardEvent.key` says it: `Enter`, `Tab`, `ArrowDown`, `a`, `Control+a`… */
const keyName = () =>
  z
    .string()
    .min(1)
    .max(64)
    .regex(/^[\w+\-=[\];',./\\`!@#$%^&*()~{}:"<>?|]+$/, 'a key name such as Enter, Tab, ArrowDown or a');

export const WeftBrowserLiveInput = lazySchema(() =>
  z.discriminatedUnion('type', [
    z.object({
      type: z.literal('click'),
      x: coordinate(),
      y: coordinate(),
      button: z.enum(['left', 'right', 'middle']).optional(),
    }),
    z.object({
      type: z.literal('wheel'),
      x: coordinate(),
      y: coordinate(),
      deltaX: z.number().finite().min(-10_000).max(10_000),
      deltaY: z.number().finite().min(-10_000).max(10_000),
    }),
    // A press, moves and a release, for what a click cannot do: drag, select text, move a slider.
    z.object({
      type: z.literal('down'),
      x: coordinate(),
      y: coordinate(),
      button: z.enum(['left', 'right', 'middle']).optional(),
    }),
    z.object({ type: z.literal('move'), x: coordinate(), y: coordinate() }),
    z.object({
      type: z.literal('up'),
      x: coordinate(),
      y: coordinate(),
      button: z.enum(['left', 'right', 'middle']).optional(),
    }),
    z.object({ type: z.literal('text'), text: z.string().min(1).max(10_000) }),
    z.object({ type: z.literal('key'), key: keyName() }),
  ]),
);
export type WeftBrowserLiveInput = z.infer<typeof WeftBrowserLiveInput>;

export const WeftBrowserLiveInputParams = lazySchema(() =>
  z.object({ threadId: z.string().min(1), input: WeftBrowserLiveInput }),
);
export type WeftBrowserLiveInputParams = z.infer<typeof WeftBrowserLiveInputParams>;
export const WeftBrowserLiveInputResult = lazySchema(() => z.object({}));
export type WeftBrowserLiveInputResult = z.infer<typeof WeftBrowserLiveInputResult>;

/** The page's picture now: `data` is a base64 JPEG of `width` × `height` CSS pixels; `url` its address. */
export const WeftBrowserLiveFrame = lazySchema(() =>
  z.object({
    threadId: z.string(),
    data: z.string(),
    width: z.number().int().positive(),
    height: z.number().int().positive(),
    url: z.string(),
  }),
);
export type WeftBrowserLiveFrame = z.infer<typeof WeftBrowserLiveFrame>;

/** The thread's browser has no page any more (the model closed it, it crashed, or the thread let it go). */
export const WeftBrowserLiveClosed = lazySchema(() => z.object({ threadId: z.string() }));
export type WeftBrowserLiveClosed = z.infer<typeof WeftBrowserLiveClosed>;
