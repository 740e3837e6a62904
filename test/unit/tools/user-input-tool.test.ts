// `request_user_input` in a turn that may ask nobody (TurnSettings.questions off: an automation's run): a
// call the model makes anyway is refused, and nobody is asked.
import { describe, expect, it } from 'vitest';
import { ToolRegistry } from '../../../src-main/tools/registry';
import { requestUserInputTool } from '../../../src-main/tools/user-input-tool';
import { testToolContext } from '../../support/tool-context';

const call = {
  kind: 'function' as const,
  callId: 'q',
  name: 'request_user_input',
  arguments: JSON.stringify({ questions: [{ id: 'a', header: 'Pick', question: 'Which one?' }] }),
};

describe('request_user_input', () => {
  it('asks the person in a turn that may ask, and refuses without asking in one that may not', async () => {
    const registry = new ToolRegistry().register(requestUserInputTool());
    const asked: unknown[] = [];
    const sendRequest = async (request: unknown) => {
      asked.push(request);
      return { answers: { a: { answers: ['this one'] } } };
    };
    const answered = await registry.dispatch(call, { ...testToolContext({ sendRequest }), questions: true });
    expect(answered).toMatchObject({ success: true });
    expect(asked).toHaveLength(1);
    const refused = await registry.dispatch(call, { ...testToolContext({ sendRequest }), questions: false });
    expect(refused).toMatchObject({
      success: false,
      output: expect.stringContaining('nobody is there to answer questions in this turn'),
    });
    expect(asked).toHaveLength(1);
  });
});
