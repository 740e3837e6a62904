// Main-thread CPU time per frame of a Chromium page, from a DevTools trace taken over CDP. Wall-clock
// frame intervals depend on what else the machine runs; the thread time (`tdur`) of the tasks between
// two frames is what the page itself costs, so it is reported beside them.
import type { CDPSession } from 'playwright-core';
import { z } from 'zod';

const TraceEvent = z.looseObject({
  name: z.string(),
  ph: z.string(),
  pid: z.number(),
  tid: z.number(),
  ts: z.number(),
  dur: z.number().optional(),
  tdur: z.number().optional(),
  args: z.looseObject({ name: z.string().optional() }).optional(),
});
type TraceEvent = z.infer<typeof TraceEvent>;

const DataCollected = z.object({ value: z.array(z.unknown()) });

/** Callbacks starting within this many microseconds of a frame's first callback belong to that frame. */
const MERGE_US = 8000;

export interface FrameCost {
  frames: number;
  /** Main-thread CPU milliseconds spent in each frame interval. */
  cpuMs: number[];
  /** The renderer main thread's complete events (when asked for: to see where a frame's time went). */
  mainEvents?: TraceEvent[];
}

/**
 * Records a trace while `action` runs and returns the renderer main thread's CPU time per frame. Keep a
 * requestAnimationFrame loop running meanwhile: frames are delimited by their rAF callbacks.
 */
export async function traceFrames(
  cdp: CDPSession,
  action: () => Promise<unknown>,
  keepEvents = false,
): Promise<FrameCost> {
  const events: TraceEvent[] = [];
  const onData = (payload: unknown): void => {
    const parsed = DataCollected.safeParse(payload);
    if (!parsed.success) return;
    for (const raw of parsed.data.value) {
      const event = TraceEvent.safeParse(raw);
      if (event.success) events.push(event.data);
    }
  };
  cdp.on('Tracing.dataCollected', onData);
  await cdp.send('Tracing.start', {
    transferMode: 'ReportEvents',
    traceConfig: { includedCategories: ['toplevel', 'devtools.timeline', 'disabled-by-default-devtools.timeline'] },
  });
  try {
    await action();
  } finally {
    const complete = new Promise<void>((resolve) => cdp.once('Tracing.tracingComplete', () => resolve()));
    await cdp.send('Tracing.end');
    await complete;
    cdp.off('Tracing.dataCollected', onData);
  }
  return frameCost(events, keepEvents);
}

function frameCost(events: readonly TraceEvent[], keepEvents: boolean): FrameCost {
  const main = events.find((e) => e.ph === 'M' && e.name === 'thread_name' && e.args?.name === 'CrRendererMain');
  if (main === undefined) return { frames: 0, cpuMs: [] };
  const onMain = events.filter((e) => e.pid === main.pid && e.tid === main.tid && e.ph === 'X');
  // Frames are marked by their animation-frame callbacks (the caller keeps a rAF loop running). One
  // frame runs all its callbacks back to back, each its own event: starts closer than MERGE_US are one.
  const callbacks = onMain
    .filter((e) => e.name === 'FireAnimationFrame')
    .map((e) => e.ts)
    .sort((a, b) => a - b);
  const frameStarts: number[] = [];
  for (const ts of callbacks)
    if (ts - (frameStarts[frameStarts.length - 1] ?? -Infinity) > MERGE_US) frameStarts.push(ts);
  const tasks = onMain
    .filter((e) => e.name === 'ThreadControllerImpl::RunTask' || e.name === 'RunTask')
    .sort((a, b) => a.ts - b.ts);
  const cpuMs = frameStarts.map(() => 0);
  let end = -Infinity;
  let frame = 0;
  for (const task of tasks) {
    if (task.ts < end) continue; // nested in the previous top-level task
    end = task.ts + (task.dur ?? 0);
    while (frame + 1 < frameStarts.length && (frameStarts[frame + 1] ?? Infinity) <= task.ts) frame += 1;
    if (task.ts < (frameStarts[0] ?? Infinity)) continue;
    cpuMs[frame] = (cpuMs[frame] ?? 0) + (task.tdur ?? task.dur ?? 0) / 1000;
  }
  return { frames: frameStarts.length, cpuMs, ...(keepEvents ? { mainEvents: onMain } : {}) };
}
