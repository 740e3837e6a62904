// A big Weft rollout written straight as lines (no agent runs), in the form the recorder writes: each turn
// has the user's message, a reasoning item, a command with its output, and an answer, each as its model
// history line(s) and its `item_completed` event. Tens of megabytes are written in well under a second.
import { mkdir, open } from 'node:fs/promises';
import { dirname } from 'node:path';
import { rolloutPath } from '../../src-main/store/paths';
import { uuidv7 } from '../../src-main/util/ids';

export interface BigRolloutOptions {
  cwd: string;
  /** The file grows by whole turns until it holds at least this many bytes. */
  bytes: number;
  /** Bytes of the reasoning item's encrypted content (history only: never shown). Default 16 KiB. */
  reasoningBytes?: number;
  /** Bytes of each command's output (in the history and in the shown item). Default 2 KiB. */
  outputBytes?: number;
  /** Commands per turn. Default 1. */
  commands?: number;
}

export interface BigRollout {
  id: string;
  path: string;
  bytes: number;
  /** Turn ids, oldest first. */
  turnIds: string[];
}

const filler = (n: number, seed: number): string => {
  const word = `line ${seed} of the output `;
  return word.repeat(Math.ceil(n / word.length)).slice(0, n);
};

/** Writes the rollout of a new thread into `weftHome`'s sessions folder. */
export async function writeBigRollout(weftHome: string, options: BigRolloutOptions): Promise<BigRollout> {
  const created = new Date(Date.now() - 3_600_000);
  const id = uuidv7(created.getTime());
  const path = rolloutPath(weftHome, created, id);
  await mkdir(dirname(path), { recursive: true });
  const file = await open(path, 'w');
  const reasoningBytes = options.reasoningBytes ?? 16 << 10;
  const outputBytes = options.outputBytes ?? 2 << 10;
  const commands = options.commands ?? 1;
  const cwd = JSON.stringify(options.cwd);
  let ordinal = 0;
  let bytes = 0;
  let t = created.getTime();
  let pending: string[] = [];
  const line = (type: string, payload: string): void => {
    const text = `{"timestamp":"${new Date(t).toISOString()}","ordinal":${ordinal++},"type":"${type}","payload":${payload}}\n`;
    pending.push(text);
    bytes += Buffer.byteLength(text);
  };
  const flush = async (): Promise<void> => {
    await file.write(pending.join(''));
    pending = [];
  };
  const turnIds: string[] = [];
  try {
    line(
      'session_meta',
      `{"id":"${id}","forked_from_id":null,"forked_at_turn_id":null,"timestamp":"${created.toISOString()}","cwd":${cwd},"originator":"weft","cli_version":"0.1.0","source":"appServer","model_provider":"mock","base_instructions":null,"git":null,"history_mode":"paginated"}`,
    );
    for (let n = 0; bytes < options.bytes; n++) {
      const turn = `turn-${String(n).padStart(6, '0')}`;
      turnIds.push(turn);
      const secs = Math.floor(t / 1000);
      const weftTurn = (status: string, done: boolean): string =>
        `{"id":"${turn}","status":"${status}","error":null,"startedAt":${secs},"completedAt":${done ? secs + 2 : null},"durationMs":${done ? 2000 : null}}`;
      line('event_msg', `{"type":"task_started","turn_id":"${turn}","weft_turn":${weftTurn('inProgress', false)}}`);
      line(
        'turn_context',
        `{"turn_id":"${turn}","cwd":${cwd},"approval_policy":"never","sandbox_policy":{"type":"workspace-write","writable_roots":[],"network_access":false},"model":"mock-model","effort":null,"summary":"auto"}`,
      );
      const ask = JSON.stringify(`step ${n}: look at the next part of the build and fix what fails`);
      line('response_item', `{"type":"message","role":"user","content":[{"type":"input_text","text":${ask}}]}`);
      line(
        'event_msg',
        `{"type":"item_completed","thread_id":"${id}","turn_id":"${turn}","item":{"type":"UserMessage","id":"${turn}-u","content":[{"type":"text","text":${ask},"text_elements":[]}]}}`,
      );
      line(
        'response_item',
        `{"type":"reasoning","id":"rs_${n}","summary":[{"type":"summary_text","text":"Looking at part ${n}"}],"encrypted_content":"gAAAA${'x'.repeat(reasoningBytes)}"}`,
      );
      line(
        'event_msg',
        `{"type":"item_completed","thread_id":"${id}","turn_id":"${turn}","item":{"type":"Reasoning","id":"${turn}-r","summary_text":["Looking at part ${n}"],"raw_content":[]}}`,
      );
      for (let c = 0; c < commands; c++) {
        const call = `call_${n}_${c}`;
        const output = JSON.stringify(`${filler(outputBytes, n)}\n`);
        line(
          'response_item',
          `{"type":"function_call","name":"exec_command","arguments":"{\\"cmd\\":\\"make part${n}\\"}","call_id":"${call}","id":"fc_${call}","status":"completed"}`,
        );
        line(
          'event_msg',
          `{"type":"item_completed","thread_id":"${id}","turn_id":"${turn}","item":{"type":"CommandExecution","id":"${turn}-c${c}","process_id":null,"command":["/bin/bash","-lc","make part${n}"],"cwd":"file://${options.cwd}","parsed_cmd":[{"type":"unknown","cmd":"make part${n}"}],"source":"agent","status":"completed","aggregated_output":${output},"exit_code":0,"duration":{"secs":1,"nanos":0}}}`,
        );
        line(
          'event_msg',
          `{"type":"weft_item_fields","turn_id":"${turn}","item_id":"${turn}-c${c}","fields":{"weftOutcome":"exited"}}`,
        );
        line('response_item', `{"type":"function_call_output","call_id":"${call}","output":${output}}`);
      }
      const answer = JSON.stringify(`Part ${n} builds now. ${filler(200, n)}`);
      line(
        'event_msg',
        `{"type":"item_completed","thread_id":"${id}","turn_id":"${turn}","item":{"type":"AgentMessage","id":"${turn}-a","content":[{"type":"Text","text":${answer}}]}}`,
      );
      line(
        'response_item',
        `{"type":"message","role":"assistant","content":[{"type":"output_text","text":${answer},"annotations":[]}],"id":"msg_${n}","status":"completed"}`,
      );
      line(
        'event_msg',
        `{"type":"task_complete","turn_id":"${turn}","last_agent_message":${answer},"weft_turn":${weftTurn('completed', true)}}`,
      );
      t += 5000;
      if (pending.length > 4096) await flush();
    }
    await flush();
  } finally {
    await file.close();
  }
  return { id, path, bytes, turnIds };
}
