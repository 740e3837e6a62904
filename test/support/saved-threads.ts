// Saved threads written straight into a WEFT_HOME through the real store (no server, no model): each one
// finished turn, "<prompt>" answered by "<answer>", so a test or a bench can open a home that already holds
// hundreds of threads in a second or two. Free of vitest, so benches use it too.
import type { ThreadItem, Turn } from '../../src-preload/protocol';
import { ThreadStore } from '../../src-main/store';
import { uuidv7 } from '../../src-main/util/ids';

export interface SavedThread {
  id: string;
  prompt: string;
  answer: string;
}

/**
 * Writes one thread per prompt into `home`, working in `cwd`, oldest first: the last prompt is the newest
 * thread (the top of the list). `answerOf` gives each thread's answer (default: "Answer to <prompt>.").
 */
export async function saveThreads(
  home: string,
  cwd: string,
  prompts: readonly string[],
  answerOf: (prompt: string, index: number) => string = (prompt) => `Answer to ${prompt}.`,
): Promise<SavedThread[]> {
  // A minute apart, ending now: the list's order is the order written, and the times read naturally.
  let clock = Date.now() - prompts.length * 60_000;
  const store = ThreadStore.open(home, { now: () => new Date((clock += 1_000)), onWarning: () => undefined });
  const saved: SavedThread[] = [];
  try {
    for (const [index, prompt] of prompts.entries()) {
      clock += 60_000;
      const id = uuidv7();
      const answer = answerOf(prompt, index);
      const { recorder } = store.createThread({
        id,
        cwd,
        modelProvider: 'mock',
        model: 'mock-model',
        source: 'appServer',
        baseInstructions: null,
      });
      const turnId = `${id}-turn-1`;
      const at = Math.floor(clock / 1000);
      const started: Turn = {
        id: turnId,
        items: [],
        status: 'inProgress',
        error: null,
        startedAt: at,
        completedAt: null,
        durationMs: null,
      };
      recorder.notification({ method: 'turn/started', params: { threadId: id, turn: started } });
      recorder.turnContext({
        turnId,
        cwd,
        approvalPolicy: 'on-request',
        sandboxPolicy: { type: 'dangerFullAccess' },
        model: 'mock-model',
        effort: null,
        summary: 'auto',
      });
      recorder.responseItems([{ type: 'message', role: 'user', content: [{ type: 'input_text', text: prompt }] }]);
      const items: ThreadItem[] = [
        { type: 'userMessage', id: `${turnId}-user`, content: [{ type: 'text', text: prompt }] },
        { type: 'agentMessage', id: `${turnId}-answer`, text: answer, phase: 'final_answer' },
      ];
      for (const item of items) {
        recorder.notification({
          method: 'item/completed',
          params: { threadId: id, turnId, item, completedAtMs: clock },
        });
      }
      recorder.responseItems([
        { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: answer, annotations: [] }] },
      ]);
      recorder.notification({
        method: 'turn/completed',
        params: { threadId: id, turn: { ...started, status: 'completed', completedAt: at + 1, durationMs: 1_000 } },
      });
      await recorder.turnEnded();
      await recorder.close();
      saved.push({ id, prompt, answer });
    }
  } finally {
    await store.close();
  }
  return saved;
}
