// What the main thread tells the start-up index check's worker (index-check.ts → index-check-worker.ts): its
// `workerData`, and the word that stops it. Checked here by hand: zod is one of the things the worker does
// not load unless a rollout changed (index-changes.ts).
import type { RolloutSource } from './index-changes';

/** The worker's `workerData`: the index to read, the folders of rollouts, and the home of the saved outlines. */
export interface IndexCheckRequest {
  home: string;
  indexPath: string;
  sources: RolloutSource[];
}

/** Main thread → worker: end now (a check under way ends as cancelled); the worker then ends by itself. */
export const STOP = 'stop';

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null;

function sourceOf(value: unknown, at: number): RolloutSource {
  const where = `the index check's request: sources[${at}]`;
  if (!isObject(value)) throw new TypeError(`${where} is not an object`);
  const { dir, archived, origin, names } = value;
  if (typeof dir !== 'string') throw new TypeError(`${where}.dir is not a string`);
  if (typeof archived !== 'boolean') throw new TypeError(`${where}.archived is not a boolean`);
  if (origin !== 'weft' && origin !== 'codex') throw new TypeError(`${where}.origin is neither "weft" nor "codex"`);
  if (names === undefined) return { dir, archived, origin };
  if (!(names instanceof Map) || ![...names].every(([k, v]) => typeof k === 'string' && typeof v === 'string')) {
    throw new TypeError(`${where}.names is not a map of strings`);
  }
  return { dir, archived, origin, names: names as ReadonlyMap<string, string> };
}

/** The request as the worker received it, checked; a TypeError naming the first field that is wrong. */
export function readIndexCheckRequest(value: unknown): IndexCheckRequest {
  if (!isObject(value)) throw new TypeError("the index check's request is not an object");
  const { home, indexPath, sources } = value;
  if (typeof home !== 'string') throw new TypeError("the index check's request: home is not a string");
  if (typeof indexPath !== 'string') throw new TypeError("the index check's request: indexPath is not a string");
  if (!Array.isArray(sources)) throw new TypeError("the index check's request: sources is not a list");
  return { home, indexPath, sources: sources.map((s: unknown, i) => sourceOf(s, i)) };
}
