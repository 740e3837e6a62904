import { describe, expect, it } from 'vitest';
import {
  commandApprovalForm,
  commandDecision,
  patchDecision,
  questionsAnswer,
  questionsForm,
} from '../../../src-main/faces/questions';

describe('approvals as elicitation forms', () => {
  it('shows the command and offers the decisions', () => {
    const form = commandApprovalForm({
      threadId: 't',
      turnId: 'u',
      itemId: 'i',
      startedAtMs: 0,
      command: 'rm -rf build',
      cwd: '/p',
      reason: 'clean up',
    });
    expect(form.message).toContain('rm -rf build');
    expect(form.message).toContain('Reason: clean up');
    expect(form.requestedSchema.properties['decision']).toMatchObject({
      type: 'string',
      enum: ['accept', 'acceptForSession', 'decline'],
    });
  });
  it('reads accept, the chosen decision, decline and cancel', () => {
    expect(commandDecision({ action: 'accept' })).toBe('accept');
    expect(commandDecision({ action: 'accept', content: { decision: 'acceptForSession' } })).toBe('acceptForSession');
    expect(commandDecision({ action: 'accept', content: { decision: 'decline' } })).toBe('decline');
    expect(commandDecision({ action: 'decline' })).toBe('decline');
    expect(patchDecision({ action: 'cancel' })).toBe('cancel');
    expect(patchDecision({ action: 'something-new' })).toBe('cancel');
  });
});

describe('questions as elicitation forms', () => {
  const params = {
    threadId: 't',
    isBlocking: true,
    turnId: 'u',
    itemId: 'i',
    questions: [
      {
        id: 'color',
        header: 'Colour',
        question: 'Which colour?',
        options: [
          { label: 'Red', description: 'warm' },
          { label: 'Blue', description: 'cool' },
        ],
      },
      { id: 'name', header: 'Name', question: 'What name?', options: null },
    ],
  };
  it('gives each question a field', () => {
    expect(questionsForm(params).requestedSchema.properties).toEqual({
      color: { type: 'string', title: 'Colour', description: 'Which colour?', enum: ['Red', 'Blue'] },
      name: { type: 'string', title: 'Name', description: 'What name?' },
    });
  });
  it('reads the answers of an accepted form only', () => {
    expect(questionsAnswer(params, { action: 'accept', content: { color: 'Blue', name: ' ' } })).toEqual({
      answers: { color: { answers: ['Blue'] } },
    });
    expect(questionsAnswer(params, { action: 'decline', content: { color: 'Blue' } })).toEqual({ answers: {} });
  });
});
