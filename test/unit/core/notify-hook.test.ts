// Which turns call the `notify` program, and with what (Codex 0.169: completed agent turns only).
import { describe, expect, it } from 'vitest';
import type { Turn } from '../../../src-preload/protocol';
import { agentTurnCompletePayload } from '../../../src-main/core/notify-hook';

const turn = (status: Turn['status'], items: Turn['items']): Turn => ({
  id: 'turn-1',
  items,
  status,
  error: status === 'failed' ? { message: 'the model broke', codexErrorInfo: 'other', additionalDetails: null } : null,
  startedAt: null,
  completedAt: null,
  durationMs: null,
});

const asked: Turn['items'] = [
  {
    type: 'userMessage',
    id: 'u1',
    content: [
      { type: 'text', text: 'look at this' },
      { type: 'localImage', path: '/work/shot.png' },
    ],
  },
  { type: 'agentMessage', id: 'a1', text: 'Looking.', phase: 'commentary' },
  { type: 'userMessage', id: 'u2', content: [{ type: 'text', text: 'and this' }] },
  { type: 'agentMessage', id: 'a2', text: 'Both done.', phase: 'final_answer' },
];

describe('agentTurnCompletePayload', () => {
  it('holds every text the user sent in the turn and the last thing the agent said', () => {
    expect(agentTurnCompletePayload('t1', turn('completed', asked), '/work', 'weft_exec')).toEqual({
      type: 'agent-turn-complete',
      'thread-id': 't1',
      'turn-id': 'turn-1',
      cwd: '/work',
      client: 'weft_exec',
      'input-messages': ['look at this', 'and this'],
      'last-assistant-message': 'Both done.',
    });
  });

  it('leaves the client out when none named itself, and says null when the agent said nothing', () => {
    const payload = agentTurnCompletePayload('t1', turn('completed', asked.slice(0, 1)), '/work', null);
    expect(payload).toEqual({
      type: 'agent-turn-complete',
      'thread-id': 't1',
      'turn-id': 'turn-1',
      cwd: '/work',
      'input-messages': ['look at this'],
      'last-assistant-message': null,
    });
  });

  it('calls nothing for a failed or stopped turn, or a turn without the user’s words', () => {
    expect(agentTurnCompletePayload('t1', turn('failed', asked), '/work', 'x')).toBeNull();
    expect(agentTurnCompletePayload('t1', turn('interrupted', asked), '/work', 'x')).toBeNull();
    const compaction = turn('completed', [{ type: 'contextCompaction', id: 'c1' }]);
    expect(agentTurnCompletePayload('t1', compaction, '/work', 'x')).toBeNull();
  });
});
