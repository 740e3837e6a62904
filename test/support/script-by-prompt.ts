// Scripting the mock model for threads that run at once: their requests reach the model in an order none
// of them chooses, so each request is answered by the next step of the thread whose prompt it carries.
import type { MockResponsesServer, ScriptStep } from './mock-responses-server';

/**
 * Enqueues one step per scripted answer; each, when a request comes, looks for the first key of `scripts`
 * that the request's body holds and answers with that key's next step. A request holding none, or one whose
 * script is spent, is an error the mock reports.
 */
export function scriptByPrompt(server: MockResponsesServer, scripts: Record<string, ScriptStep[]>): void {
  const total = Object.values(scripts).reduce((n, steps) => n + steps.length, 0);
  for (let i = 0; i < total; i += 1)
    server.enqueue((request) => {
      const body = JSON.stringify(request.body);
      const prompt = Object.keys(scripts).find((key) => body.includes(key));
      const step = prompt === undefined ? undefined : scripts[prompt]?.shift();
      if (step === undefined) throw new Error(`no scripted step left for request #${request.n}`);
      return typeof step === 'function' ? step(request) : step;
    });
}
