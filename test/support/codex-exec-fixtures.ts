// Codex 0.169's `codex exec --experimental-json` output, recorded against the mock model (see
// test/fixtures/codex-exec-0.169/README.md), and a way to compare the shape of events and items.
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { z } from 'zod';

export const CODEX_EXEC_FIXTURES = resolve(__dirname, '../fixtures/codex-exec-0.169');

const FixtureEvent = z.looseObject({ type: z.string() });
export type FixtureEvent = z.infer<typeof FixtureEvent>;

/**
 * The events of one recorded run, without Codex's warning that it has no metadata for the mock
 * model (an `error` item about the model name, not about the run).
 */
export function codexExecFixture(name: string): FixtureEvent[] {
  const text = readFileSync(resolve(CODEX_EXEC_FIXTURES, `${name}.jsonl`), 'utf8');
  return text
    .trim()
    .split('\n')
    .map((line) => FixtureEvent.parse(JSON.parse(line)))
    .filter((event) => !isModelMetadataWarning(event));
}

function isModelMetadataWarning(event: FixtureEvent): boolean {
  const item = z.object({ type: z.literal('error'), message: z.string() }).safeParse(event['item']);
  return event.type === 'item.completed' && item.success && item.data.message.startsWith('Model metadata for');
}

/** The shape of a JSON value: each leaf becomes its JSON type, each array the shapes of its elements. */
export function shapeOf(value: unknown): unknown {
  if (value === null) return 'null';
  if (Array.isArray(value))
    return [...new Set(value.map((v) => JSON.stringify(shapeOf(v))))].map((s) => JSON.parse(s) as unknown);
  if (typeof value === 'object') {
    return Object.fromEntries(
      Object.entries(value)
        .sort(([a], [b]) => a.localeCompare(b))
        .map(([k, v]) => [k, shapeOf(v)]),
    );
  }
  return typeof value;
}

/** `type` of each event, with the item type for item events: `item.completed:agent_message`. */
export function eventKinds(events: readonly { type: string; item?: unknown }[]): string[] {
  return events.map((e) => {
    const item = z.object({ type: z.string() }).safeParse(e.item);
    return item.success ? `${e.type}:${item.data.type}` : e.type;
  });
}
