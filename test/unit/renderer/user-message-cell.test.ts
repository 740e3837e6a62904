// The user's message cell draws every kind of input it can carry: text, images, and the files and skills
// the message points at (as chips naming them, with the full path on hover).
import { createElement } from 'react';
import { renderToStaticMarkup } from 'react-dom/server';
import { describe, expect, it } from 'vitest';
import type { UserMessageItem } from '../../../src-preload/protocol';
import { UserMessageCell } from '../../../src-renderer/components/items/MessageCells';

function draw(content: UserMessageItem['content']): string {
  const item: UserMessageItem = { type: 'userMessage', id: 'u1', content };
  return renderToStaticMarkup(createElement(UserMessageCell, { item }));
}

/** The chips of the markup, as their class, title and visible text (icons and tags removed). */
function chips(html: string): { className: string; title: string | null; text: string; icon: boolean }[] {
  const found = [
    ...html.matchAll(/<span class="(chip[^"]*)"(?: title="([^"]*)")?>(.*?)<\/span>(?=<span class="chip|<\/div>|<p)/g),
  ];
  return found.map((m) => ({
    className: m[1] ?? '',
    title: m[2] ?? null,
    text: (m[3] ?? '').replace(/<svg.*?<\/svg>/g, '').replace(/<[^>]+>/g, ''),
    icon: (m[3] ?? '').includes('<svg'),
  }));
}

describe('user message cell', () => {
  it('draws a mentioned file as a chip naming it, the path on hover', () => {
    const html = draw([
      { type: 'text', text: 'look at @parser.ts' },
      { type: 'mention', name: 'parser.ts', path: '/work/app/src/parser.ts' },
    ]);
    expect(html).toContain('<p class="user-text">look at @parser.ts</p>');
    expect(chips(html)).toEqual([
      { className: 'chip chip-mention', title: '/work/app/src/parser.ts', text: ' parser.ts', icon: true },
    ]);
  });

  it('draws an invoked skill as a chip saying it is a skill', () => {
    const html = draw([{ type: 'skill', name: 'release-notes', path: '/home/me/.weft/skills/release-notes/SKILL.md' }]);
    expect(chips(html)).toEqual([
      {
        className: 'chip chip-skill',
        title: '/home/me/.weft/skills/release-notes/SKILL.md',
        text: ' Skill release-notes',
        icon: true,
      },
    ]);
    expect(html).toContain('<span class="sr-only">Skill </span>');
  });

  it('keeps every part, in order', () => {
    const html = draw([
      { type: 'text', text: 'first' },
      { type: 'localImage', path: '/tmp/shot.png' },
      { type: 'mention', name: 'a.ts', path: '/p/a.ts' },
      { type: 'skill', name: 'lint', path: '/s/lint/SKILL.md' },
    ]);
    const order = ['first', '/tmp/shot.png', 'a.ts', 'Skill </span>lint'].map((s) => html.indexOf(s));
    expect(order.every((at) => at >= 0)).toBe(true);
    expect([...order].sort((a, b) => a - b)).toEqual(order);
  });
});
