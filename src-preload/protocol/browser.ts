/**
 * How the `browser` tools ask (an `item/tool/requestUserInput` with one question of id `questionId`): before
 * `evaluate` runs a script in the page, and before the page reaches an origin beyond loopback while the
 * network is on. The answer is one of the option labels; no answer declines.
 */
export const BROWSER_APPROVAL = {
  questionId: 'approval',
  header: 'Browser',
  allow: 'Allow',
  allowForSession: 'Allow for this session',
  decline: 'Decline',
} as const;
