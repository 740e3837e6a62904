// What each agent of the "many agents" bench does, scripted on the mock Responses server: one turn of
// commands that write files of 1 KiB to 8 MiB (and print 3,000 lines each), and patches that add and
// change files, with a commentary streamed before each step. A request gets the step its agent is at,
// read from the request itself (the agent's number in its first message, the tool results it carries), so
// eight threads asking in any order each get their own next step.
import type { MockResponsesServer, MockStep, RecordedRequest } from '../test/support/mock-responses-server';
import {
  evAssistantMessage,
  evCompleted,
  evCreated,
  evFunctionCall,
  evOutputTextDelta,
  type SseEvent,
} from '../test/support/sse';

export const AGENTS = 8;

const KIB = 1024;
const MIB = 1024 * KIB;

type Step = { kind: 'command'; bytes: number } | { kind: 'patch'; patch: (agent: number) => string };

const notes = (agent: number, file: number, lines: number): string[] =>
  Array.from({ length: lines }, (_, i) => `note ${file} line ${i} of agent ${agent}`);

const STEPS: readonly Step[] = [
  { kind: 'command', bytes: 1 * KIB },
  {
    kind: 'patch',
    patch: (a) =>
      [
        '*** Begin Patch',
        `*** Add File: agent-${a}/notes-1.md`,
        ...notes(a, 1, 200).map((l) => `+${l}`),
        '*** End Patch',
      ].join('\n'),
  },
  { kind: 'command', bytes: 16 * KIB },
  { kind: 'command', bytes: 256 * KIB },
  {
    kind: 'patch',
    patch: (a) =>
      [
        '*** Begin Patch',
        `*** Update File: agent-${a}/notes-1.md`,
        '@@',
        ` note 1 line 99 of agent ${a}`,
        `-note 1 line 100 of agent ${a}`,
        `+note 1 line 100 of agent ${a} (revised)`,
        ` note 1 line 101 of agent ${a}`,
        '*** End Patch',
      ].join('\n'),
  },
  { kind: 'command', bytes: 1 * MIB },
  {
    kind: 'patch',
    patch: (a) =>
      [
        '*** Begin Patch',
        `*** Add File: agent-${a}/notes-2.md`,
        ...notes(a, 2, 2000).map((l) => `+${l}`),
        '*** End Patch',
      ].join('\n'),
  },
  { kind: 'command', bytes: 4 * MIB },
  { kind: 'command', bytes: 8 * MIB },
];

/** Model requests of one agent's turn: one per step, and the final answer. */
export const REQUESTS_PER_AGENT = STEPS.length + 1;

/** What one agent's turn writes, for the notes. */
export const WORK_SUMMARY = `${STEPS.filter((s) => s.kind === 'command').length} commands writing ${STEPS.flatMap((s) => (s.kind === 'command' ? [s.bytes < MIB ? `${s.bytes / KIB} KiB` : `${s.bytes / MIB} MiB`] : [])).join(', ')} (each printing 3,000 lines) and ${STEPS.filter((s) => s.kind === 'patch').length} patches`;

/** The first message of agent `agent`'s thread. */
export function agentPrompt(agent: number): string {
  return `agent ${agent}: build part ${agent} and write its data files`;
}

const DELTAS = 20;

/** Answers every request of `agents` agents' turns (queued now, served in any order). */
export function scriptAgents(mock: MockResponsesServer, agents = AGENTS): void {
  for (let i = 0; i < agents * REQUESTS_PER_AGENT; i++) mock.enqueue(respond);
}

function respond(request: RecordedRequest): MockStep {
  const agent = Number(/agent (\d+): build part/.exec(request.rawBody)?.[1] ?? Number.NaN);
  if (!Number.isInteger(agent))
    throw new Error(`many-agents: a request names no agent: ${request.rawBody.slice(0, 300)}`);
  const done = request.rawBody.split('"type":"function_call_output"').length - 1;
  const step = STEPS[done];
  const id = `${agent}_${done}`;
  const text =
    step === undefined
      ? `Part ${agent} is built; its data files are written and the notes are up to date.`
      : step.kind === 'command'
        ? `Writing data file ${done} of part ${agent} (${step.bytes} bytes) and checking the build output.`
        : `Updating the notes of part ${agent}.`;
  const events: (SseEvent | readonly SseEvent[])[] = [evCreated(`resp_${id}`)];
  const piece = Math.ceil(text.length / DELTAS);
  for (let at = 0; at < text.length; at += piece)
    events.push(evOutputTextDelta(text.slice(at, at + piece), `msg_${id}`));
  events.push(evAssistantMessage(text, `msg_${id}`));
  if (step?.kind === 'command') {
    const file = `agent-${agent}/data-${done}.txt`;
    const cmd = `mkdir -p agent-${agent} && base64 -w 76 /dev/urandom | head -c ${step.bytes} > ${file} && seq 1 3000`;
    events.push(evFunctionCall(`call_${id}`, 'exec_command', { cmd }));
  } else if (step?.kind === 'patch') {
    events.push(evFunctionCall(`call_${id}`, 'apply_patch', { input: step.patch(agent) }));
  }
  events.push(evCompleted(`resp_${id}`));
  // The commentary streams over about 100 ms, as a model's tokens do.
  return {
    kind: 'sse-slow',
    events,
    beforeEach: (event) => (event.type === 'response.output_text.delta' ? sleep(5) : undefined),
  };
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));
