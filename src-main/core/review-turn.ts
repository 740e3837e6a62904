// What a review turn needs from its caller: the reviewer's instructions, the request text (with the
// diff already in it) and how to read the answer. The core runs it; git and the format live elsewhere.
import type { ReviewOutput } from '../../src-preload/protocol';

export interface ReviewTurnInput {
  /** What is reviewed, for people: the `enteredReviewMode` item's `review`. */
  description: string;
  /** The reviewer's instructions (replace the thread's base instructions for this request only). */
  instructions: string;
  /** The user message the reviewer gets. */
  prompt: string;
  outputSchema: Record<string, unknown> | null;
  /** The answer read: findings as data (null when unreadable) and the text shown for them. */
  parse(answer: string): { text: string; output: ReviewOutput | null };
}

/** What the thread's history keeps of a review, so later turns know about it. */
export function reviewHistoryText(description: string, text: string): string {
  return `<user_action>\nThe user asked for a code review of ${description}. The reviewer answered:\n${text}\n</user_action>`;
}
