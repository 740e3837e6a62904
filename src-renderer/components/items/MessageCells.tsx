// User and agent messages, reasoning and plan items.
import type { AgentMessageItem, PlanItem, ReasoningItem, UserMessageItem } from '../../../src-preload/protocol';
import { Icon, Spinner } from '../Icon';
import { Markdown } from '../markdown/Markdown';
import { useDisclosure } from '../preferences';

export function UserMessageCell({ item }: { item: UserMessageItem }) {
  return (
    <div className="cell cell-user">
      <h3 className="sr-only">You said</h3>
      <div className="user-bubble">
        {item.content.map((part, i) => {
          switch (part.type) {
            case 'text':
              return (
                <p key={i} className="user-text">
                  {part.text}
                </p>
              );
            case 'image':
              return part.url.startsWith('data:') ? (
                <img key={i} className="user-image" src={part.url} alt="Attached image" />
              ) : (
                <span key={i} className="chip">
                  <Icon name="image" size={13} /> {part.url}
                </span>
              );
            case 'localImage':
              return (
                <span key={i} className="chip">
                  <Icon name="image" size={13} /> {part.path}
                </span>
              );
            case 'mention':
              return (
                <span key={i} className="chip chip-mention" title={part.path}>
                  <Icon name="file" size={13} /> {part.name}
                </span>
              );
            case 'skill':
              return (
                <span key={i} className="chip chip-skill" title={part.path}>
                  <Icon name="sparkle" size={13} /> <span className="sr-only">Skill </span>
                  {part.name}
                </span>
              );
          }
        })}
      </div>
    </div>
  );
}

export function AgentMessageCell({ item, completed }: { item: AgentMessageItem; completed: boolean }) {
  return (
    <div className={`cell cell-agent ${item.phase === 'commentary' ? 'is-commentary' : ''}`}>
      <h3 className="sr-only">Weft said</h3>
      <Markdown text={item.text} final={completed} />
      {!completed && <span className="stream-caret" aria-hidden="true" />}
    </div>
  );
}

/** The first line of the latest summary part, without Markdown emphasis: a title for the block. */
function reasoningTitle(item: ReasoningItem): string {
  const latest = [...item.summary].reverse().find((part) => part.trim() !== '') ?? '';
  const line = latest.trim().split('\n')[0] ?? '';
  return line
    .replace(/^\*\*(.*)\*\*$/, '$1')
    .replace(/[*_`]/g, '')
    .trim();
}

export function ReasoningCell({
  item,
  completed,
  rowKey,
}: {
  item: ReasoningItem;
  completed: boolean;
  rowKey: string;
}) {
  const [open, setOpen] = useDisclosure(rowKey, false);
  const title = reasoningTitle(item);
  const body = [...item.summary, ...(item.summary.length === 0 ? item.content : [])]
    .filter((p) => p.trim() !== '')
    .join('\n\n');
  return (
    <div className="cell cell-reasoning">
      <button type="button" className="disclosure" aria-expanded={open} onClick={() => setOpen(!open)}>
        <Icon name={open ? 'chevronDown' : 'chevronRight'} size={14} />
        {completed ? <Icon name="sparkle" size={14} /> : <Spinner size={13} />}
        <span className="disclosure-label">{completed ? 'Thought' : 'Thinking'}</span>
        {title !== '' && <span className="disclosure-detail">{title}</span>}
      </button>
      {open && body !== '' && <Markdown className="reasoning-body" text={body} final={completed} />}
    </div>
  );
}

export function PlanItemCell({ item, completed }: { item: PlanItem; completed: boolean }) {
  return (
    <div className="cell cell-card">
      <div className="card-head">
        <Icon name="list" size={14} /> <span>Plan</span>
      </div>
      <Markdown text={item.text} final={completed} />
    </div>
  );
}
