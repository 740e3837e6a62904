// What a running turn is doing now (`weftStep`), from the items it has open, and how the board says it.
import { describe, expect, it } from 'vitest';
import type { BrowserActionItem, ThreadItem } from '../../../src-preload/protocol';
import { currentStep } from '../../../src-main/core/thread-step';
import { stepText } from '../../../src-renderer/views/BoardBadge';

const browserAction = (action: BrowserActionItem['action'], target: string): BrowserActionItem => ({
  type: 'browserAction',
  id: `b-${action}`,
  action,
  status: 'inProgress',
  target,
  url: null,
  output: null,
  error: null,
  screenshot: null,
  durationMs: null,
});

describe('the step of a running turn', () => {
  it('is the browser action in progress, not thinking', () => {
    const open: ThreadItem[] = [browserAction('open', 'http://localhost:5173/')];
    expect(currentStep(open)).toEqual({ type: 'browser', action: 'open', target: 'http://localhost:5173/' });
    expect(currentStep([])).toEqual({ type: 'thinking' });
  });

  it('reads as the action and what it acts on', () => {
    const say = (action: BrowserActionItem['action'], target: string) => {
      const { verb, object } = stepText(currentStep([browserAction(action, target)]));
      return object === null ? verb : `${verb} ${object}`;
    };
    expect(say('open', 'http://localhost:5173/')).toBe('Opening http://localhost:5173/');
    expect(say('click', 'button "Save"')).toBe('Clicking button "Save"');
    expect(say('type', 'textbox "Name"')).toBe('Typing in textbox "Name"');
    expect(say('screenshot', 'viewport')).toBe('Taking a screenshot');
    expect(say('evaluate', 'document.title')).toBe('Running a script in the page');
  });
});
