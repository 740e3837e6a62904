// Importing a Codex home of 10,000 threads in Codex 0.169's form (`weft threads import-codex`): rollouts shaped
// line for line like the real ones in test/fixtures/codex-0.169 (ordinals, `metadata` on response items,
// world_state, token_usage_record, thread_settings_applied, item_completed items, Codex-internal fields),
// 10–120 KB each; every 40th thread is a fork holding only its own turns (history_base into its parent),
// 5% are archived, 2% renamed in session_index.jsonl. Measures the import (a cold index build), then the
// first page and full-text search over every user and agent message, in one long-lived process.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync, appendFileSync } from 'node:fs';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { ThreadStore } from '../src-main/store';
import { rolloutFileName } from '../src-main/store/paths';
import { median, type BenchRow } from './measure';

interface BenchResult {
  title: string;
  rows: BenchRow[];
  notes?: string[];
}

const THREADS = 10_000;
const FORK_EVERY = 40;
const RARE_USER = 'quasarline';
const RARE_AGENT = 'vermilionfox';
const PARENT_WORD = 'lanternfish';

let seed = 4242;
function rand(): number {
  seed = (seed * 1103515245 + 12345) % 2147483648;
  return seed / 2147483648;
}
const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rand() * xs.length)] as T;
const SYL = ['ka', 'lo', 'mi', 'ne', 'ru', 'ta', 'ven', 'sol', 'dor', 'pi', 'qua', 'zen', 'bri', 'tor', 'fel', 'gan'];
const COMMON = ['the', 'parser', 'test', 'fix', 'build', 'error', 'file', 'function', 'module', 'config'];
const VOCAB: string[] = [...COMMON];
for (let i = 0; VOCAB.length < 3000; i++) VOCAB.push(pick(SYL) + pick(SYL) + (i % 3 === 0 ? pick(SYL) : ''));
const words = (n: number): string =>
  Array.from({ length: n }, () => VOCAB[Math.floor(VOCAB.length * rand() ** 3)] ?? 'x').join(' ');
const OUTPUTS = Array.from({ length: 32 }, () =>
  JSON.stringify(
    Array.from(
      { length: 5 + Math.floor(rand() * 120) },
      () => `src/${pick(VOCAB)}.ts:${Math.floor(rand() * 900)}: ${words(6)}`,
    ).join('\n'),
  ),
);
const BASE = JSON.stringify(words(900));
const SETTINGS = JSON.stringify({
  model: 'gpt-5.1-codex',
  model_provider_id: 'openai',
  approval_policy: 'on-request',
  approvals_reviewer: 'user',
  cwd: '/home/dev/src/demo',
  sandbox_policy: { type: 'workspace-write', network_access: false },
});

export function uuidv7At(ms: number): string {
  const hex =
    ms.toString(16).padStart(12, '0') +
    '7' +
    Math.floor(rand() * 4096)
      .toString(16)
      .padStart(3, '0') +
    '8' +
    Math.floor(rand() * 2 ** 48)
      .toString(16)
      .padStart(15, '0');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20, 32)}`;
}

class Writer {
  parts: string[] = [];
  size = 0;
  ordinal = 0;
  constructor(
    private t: number,
    ordinalStart = 0,
  ) {
    this.ordinal = ordinalStart;
  }
  line(type: string, payload: string, metadata?: string): void {
    const s = `{"timestamp":"${new Date((this.t += 700)).toISOString()}","ordinal":${this.ordinal++},"type":"${type}","payload":${payload}${metadata ? `,"metadata":${metadata}` : ''}}\n`;
    this.parts.push(s);
    this.size += s.length;
  }
}

interface Made {
  text: string;
  bytes: number;
  lastOrdinal: number;
}

/** Turns of one thread, in Codex 0.169's lines; `first` = the words of its first user message. */
function turns(w: Writer, id: string, cwd: string, bytes: number, first: string, agentWord: string | null): void {
  for (let turn = 0; w.size < bytes || turn === 0; turn++) {
    const turnId = uuidv7At(Date.now() + turn);
    w.line(
      'event_msg',
      `{"type":"task_started","turn_id":"${turnId}","root_turn_id":"${turnId}","started_at":1795454064,"model_context_window":258400,"collaboration_mode_kind":"default"}`,
    );
    if (turn === 0) w.line('world_state', `{"full":true,"state":{"agents_md":{},"current_date":"2026-11-23"}}`);
    w.line(
      'turn_context',
      `{"turn_id":"${turnId}","cwd":${JSON.stringify(cwd)},"approval_policy":"on-request","approvals_reviewer":"user","model":"gpt-5.1-codex","summary":"auto","sandbox_policy":{"type":"workspace-write","network_access":false}}`,
    );
    w.line('event_msg', `{"type":"thread_settings_applied","thread_id":"${id}","thread_settings":${SETTINGS}}`);
    const ask = JSON.stringify(turn === 0 ? first : words(8 + Math.floor(rand() * 40)));
    const internal = `"internal_chat_message_metadata_passthrough":{"turn_id":"${turnId}","content_item_kinds":["user.text"]}`;
    w.line(
      'response_item',
      `{"type":"message","id":"msg_${turnId}","role":"user","content":[{"type":"input_text","text":${ask}}],${internal}}`,
      `{"history_sequence":${w.ordinal},"client_authored":false}`,
    );
    w.line(
      'event_msg',
      `{"type":"item_completed","thread_id":"${id}","turn_id":"${turnId}","item":{"type":"UserMessage","id":"${turnId}-u","content":[{"type":"text","text":${ask},"text_elements":[]}]},"started_at_ms":1795454064896,"completed_at_ms":1795454064896}`,
    );
    const commands = 1 + Math.floor(rand() * 3);
    for (let c = 0; c < commands; c++) {
      const callId = `call_${turnId.slice(-12)}_${c}`;
      const out = pick(OUTPUTS);
      w.line(
        'response_item',
        `{"type":"function_call","status":"completed","id":"fc_${callId}","name":"exec_command","arguments":"{\\"cmd\\":\\"npm test\\"}","call_id":"${callId}","internal_chat_message_metadata_passthrough":{"turn_id":"${turnId}"}}`,
        `{"history_sequence":${w.ordinal}}`,
      );
      w.line(
        'token_usage_record',
        `{"thread_id":"${id}","turn_id":"${turnId}","usage":{"input_tokens":101,"cached_input_tokens":0,"output_tokens":10,"reasoning_output_tokens":0,"total_tokens":111}}`,
      );
      w.line(
        'event_msg',
        `{"type":"item_completed","thread_id":"${id}","turn_id":"${turnId}","item":{"type":"CommandExecution","id":"${callId}","process_id":"5001","command":["/bin/bash","-lc","npm test"],"cwd":"file://${cwd}","parsed_cmd":[{"type":"unknown","cmd":"npm test"}],"source":"unified_exec_startup","status":"completed","aggregated_output":${out},"exit_code":0,"duration":{"secs":0,"nanos":90294840}},"started_at_ms":1795454065275,"completed_at_ms":1795454065365}`,
      );
      w.line(
        'response_item',
        `{"type":"function_call_output","id":"fco_${callId}","call_id":"${callId}","output":${out}}`,
        `{"history_sequence":${w.ordinal}}`,
      );
      w.line(
        'event_msg',
        `{"type":"token_count","info":{"total_token_usage":{"input_tokens":203,"cached_input_tokens":0,"output_tokens":20,"reasoning_output_tokens":0,"total_tokens":223},"last_token_usage":{"input_tokens":102,"cached_input_tokens":0,"output_tokens":10,"reasoning_output_tokens":0,"total_tokens":112},"model_context_window":258400},"rate_limits":null}`,
      );
    }
    const answer = JSON.stringify(
      `${turn === 0 && agentWord ? `${agentWord} ` : ''}${words(30 + Math.floor(rand() * 150))}`,
    );
    w.line(
      'event_msg',
      `{"type":"item_completed","thread_id":"${id}","turn_id":"${turnId}","item":{"type":"AgentMessage","id":"msg_${turnId}-a","content":[{"type":"Text","text":${answer}}]},"started_at_ms":1795454065418,"completed_at_ms":1795454065455}`,
    );
    w.line(
      'response_item',
      `{"type":"message","status":"completed","id":"msg_${turnId}-a","role":"assistant","content":[{"type":"output_text","text":${answer},"annotations":[]}]}`,
      `{"history_sequence":${w.ordinal}}`,
    );
    w.line(
      'event_msg',
      `{"type":"task_complete","turn_id":"${turnId}","last_agent_message":null,"started_at":1795454064,"completed_at":1795454065,"duration_ms":645}`,
    );
  }
}

function meta(
  id: string,
  created: number,
  cwd: string,
  base: { parent: string; ordinal: number; offset: number } | null,
): string {
  const fork = base ? `"forked_from_id":"${base.parent}","forked_from_ordinal_exclusive":${base.ordinal},` : '';
  const hb = base
    ? `,"history_base":{"thread_id":"${base.parent}","end_ordinal_exclusive":${base.ordinal},"end_byte_offset":${base.offset}}`
    : '';
  return `{"session_id":"${id}","id":"${id}",${fork}"timestamp":"${new Date(created).toISOString()}","cwd":${JSON.stringify(cwd)},"originator":"codex_exec","cli_version":"0.169.0","source":"exec","model_provider":"openai","base_instructions":{"text":${BASE}},"history_mode":"paginated"${hb},"git":{"commit_hash":"bda00b3b9fd198894f9e1b77275bacd6c4b80e8b","branch":"master"}}`;
}

export function rollout(
  id: string,
  created: number,
  cwd: string,
  bytes: number,
  first: string,
  agentWord: string | null,
  base: { parent: string; ordinal: number; offset: number } | null,
): Made {
  const w = new Writer(created, base ? base.ordinal : 0);
  w.line('session_meta', meta(id, created, cwd, base));
  turns(w, id, cwd, bytes, first, agentWord);
  const text = w.parts.join('');
  return { text, bytes: Buffer.byteLength(text), lastOrdinal: w.ordinal };
}

interface Generated {
  bytes: number;
  archived: number;
  forks: number;
}

function generate(codexHome: string): Generated {
  const now = Date.UTC(2026, 10, 20);
  const cwds = Array.from({ length: 40 }, (_, i) => `/home/dev/projects/project-${i}`);
  let bytes = 0;
  let archived = 0;
  let forks = 0;
  const parents: { id: string; ordinal: number; offset: number; archived: boolean; dir: string }[] = [];
  mkdirSync(join(codexHome, 'archived_sessions'), { recursive: true });
  for (let i = 0; i < THREADS; i++) {
    const created = now - Math.floor((THREADS - i) * 2_000_000 * (0.5 + rand()));
    const id = uuidv7At(created);
    const cwd = cwds[Math.floor(40 * rand() ** 2)] ?? '/';
    const size = Math.floor(10_000 * 12 ** rand());
    const parent =
      i % FORK_EVERY === FORK_EVERY - 1
        ? parents[parents.length - 1 - Math.floor(rand() * Math.min(10, parents.length))]
        : undefined;
    const first = `${i % 500 === 3 ? `${RARE_USER} ` : ''}${i % 1000 === 11 ? `${PARENT_WORD} ` : ''}${words(8 + Math.floor(rand() * 30))}`;
    const made = rollout(
      id,
      created,
      cwd,
      size,
      parent ? words(12) : first,
      i % 700 === 5 ? RARE_AGENT : null,
      parent ? { parent: parent.id, ordinal: parent.ordinal, offset: parent.offset } : null,
    );
    if (parent) forks++;
    const isArchived = !parent && rand() < 0.05;
    const d = new Date(created);
    const dir = isArchived
      ? join(codexHome, 'archived_sessions')
      : join(
          codexHome,
          'sessions',
          String(d.getFullYear()),
          String(d.getMonth() + 1).padStart(2, '0'),
          String(d.getDate()).padStart(2, '0'),
        );
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, rolloutFileName(d, id)), made.text);
    if (isArchived) archived++;
    if (!parent) parents.push({ id, ordinal: made.lastOrdinal, offset: made.bytes, archived: isArchived, dir });
    if (i % 50 === 7)
      appendFileSync(
        join(codexHome, 'session_index.jsonl'),
        JSON.stringify({ id, thread_name: `Named ${words(3)}`, updated_at: new Date(created).toISOString() }) + '\n',
      );
    bytes += made.bytes;
  }
  return { bytes, archived, forks };
}

function timeMedian(runs: number, fn: () => unknown): number {
  const times: number[] = [];
  for (let i = 0; i < runs + 3; i++) {
    const t0 = performance.now();
    fn();
    if (i >= 3) times.push(performance.now() - t0);
  }
  return median(times);
}

export default async function run(): Promise<BenchResult> {
  const loadBefore = loadavg()[0] ?? 0;
  const root = mkdtempSync(join(tmpdir(), 'weft-bench-codex-'));
  try {
    const codexHome = join(root, 'codex');
    const genStart = performance.now();
    const gen = generate(codexHome);
    const genSeconds = (performance.now() - genStart) / 1000;

    const store = ThreadStore.open(join(root, 'weft'), { onWarning: () => undefined });
    await store.whenIndexed();
    const importStart = performance.now();
    const cpu = process.cpuUsage();
    const result = await store.importCodex(codexHome);
    const importSeconds = (performance.now() - importStart) / 1000;
    const c = process.cpuUsage(cpu);

    const live = store.list({ limit: 100 }).data.length;
    const firstMs = timeMedian(200, () => store.list({ limit: 25 }));
    const archivedMs = timeMedian(200, () => store.list({ limit: 25, archived: true }));
    const count = (term: string): number =>
      store.list({ limit: 100, searchTerm: term }).data.length +
      store.list({ limit: 100, searchTerm: term, archived: true }).data.length;
    const rareUser = count(RARE_USER);
    const rareUserMs = timeMedian(100, () => store.list({ limit: 25, searchTerm: RARE_USER }));
    const rareAgent = count(RARE_AGENT);
    const rareAgentMs = timeMedian(100, () => store.list({ limit: 25, searchTerm: RARE_AGENT }));
    const parentWord = count(PARENT_WORD);
    const parentMs = timeMedian(100, () => store.list({ limit: 25, searchTerm: PARENT_WORD }));
    const common = store.list({ limit: 100, searchTerm: 'parser test' }).data.length;
    const commonMs = timeMedian(50, () => store.list({ limit: 25, searchTerm: 'parser test' }));
    const withPreview = store.list({ limit: 100 }).data.filter((t) => t.preview !== '').length;
    await store.close();

    const gb = (gen.bytes / 1e9).toFixed(2);
    return {
      title: 'Codex import (10,000 Codex 0.169 threads)',
      rows: [
        {
          name: 'import (cold index build)',
          value: importSeconds,
          unit: 's',
          note: `${result.imported} of ${THREADS} rollouts, ${gb} GB; CPU ${((c.user + c.system) / 1e6).toFixed(1)} s; ${result.warnings.length} warnings`,
        },
        {
          name: 'list: first page (25)',
          value: firstMs,
          unit: 'ms',
          target: '≤ 5 ms',
          note: `median of 200; ${withPreview} of the first 100 have a preview`,
        },
        {
          name: 'list: first page of archived',
          value: archivedMs,
          unit: 'ms',
          target: '≤ 5 ms',
          note: `${gen.archived} archived`,
        },
        {
          name: 'search: word of a user message',
          value: rareUserMs,
          unit: 'ms',
          target: '≤ 20 ms',
          note: `${rareUser} threads match`,
        },
        {
          name: 'search: word of an agent message',
          value: rareAgentMs,
          unit: 'ms',
          target: '≤ 20 ms',
          note: `${rareAgent} threads match`,
        },
        {
          name: 'search: word a fork has from its parent',
          value: parentMs,
          unit: 'ms',
          target: '≤ 20 ms',
          note: `${parentWord} threads match (parents and their forks)`,
        },
        {
          name: 'search: two common words',
          value: commonMs,
          unit: 'ms',
          target: '≤ 20 ms',
          note: `${common === 100 ? '100+' : common} threads match`,
        },
      ],
      notes: [
        `Generated ${THREADS} rollouts (${gb} GB, ${gen.forks} forks with history_base, ${gen.archived} archived) in ${genSeconds.toFixed(1)} s; ${live === 100 ? '100+' : live} listed after the import.`,
        'List and search timings are medians inside one long-lived process after the import.',
        `Machine load (1-minute average) ${loadBefore.toFixed(1)} before and ${(loadavg()[0] ?? 0).toFixed(1)} after the run, on ${availableParallelism()} cores.`,
      ],
    };
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}
