// A commit message for the staged diff, written by the model.
import { isKnownResponseItem } from '../../src-preload/protocol';
import type { ModelClient } from '../model/types';
import { GitRequestError, stagedDiff } from './changes';

/** The model needs the gist of the change, not every byte of a large one. */
const MAX_DIFF_BYTES = 120_000;

const INSTRUCTIONS = `You write git commit messages. Given a staged diff, answer with the commit message only: a summary line of at most 72 characters in the imperative mood ("Add…", "Fix…"), then, if the change needs explaining, a blank line and a short body wrapped at 72 columns saying what changed and why. No quotes, no code fences, no trailers.`;

export async function generateCommitMessage(
  root: string,
  client: ModelClient,
  model: string,
  signal: AbortSignal,
): Promise<string> {
  const { diff, stat, truncated } = await stagedDiff(root, MAX_DIFF_BYTES);
  if (diff.trim() === '') throw new GitRequestError('nothing is staged: stage the changes to describe first');
  const text = `Write the commit message for this staged change.\n\n${stat}\n\`\`\`diff\n${diff}\n\`\`\`${truncated ? '\n(The diff was cut; the summary above lists every file.)' : ''}`;
  let answer = '';
  for await (const event of client.stream(
    {
      model,
      instructions: INSTRUCTIONS,
      input: [{ type: 'message', role: 'user', content: [{ type: 'input_text', text }] }],
      tools: [],
      parallelToolCalls: false,
      reasoning: null,
      promptCacheKey: `commit-message:${root}`,
    },
    signal,
  )) {
    if (
      event.type === 'outputItemDone' &&
      isKnownResponseItem(event.item) &&
      event.item.type === 'message' &&
      event.item.role === 'assistant'
    ) {
      answer += event.item.content.map((c) => ('text' in c && typeof c.text === 'string' ? c.text : '')).join('');
    }
  }
  const message = answer.replace(/^```[a-z]*\n?|\n?```$/g, '').trim();
  if (message === '') throw new GitRequestError('the model returned an empty commit message');
  return message;
}
