// The shell of the large review-style dialogs (Handoff, Compare ways, Compare with parent, Remove fork): a
// backdrop that closes the dialog when pressed, the modal section (labelled by its title, keyboard as
// `useModal` says), and a header of icon, title, what the dialog adds beside the title, its own tools and
// Close. Each dialog gives its body as children.
import { useId, useRef, type ReactNode } from 'react';
import { Icon, type IconName } from './Icon';
import { useModal } from './use-modal';

export interface ReviewDialogProps {
  /** Classes after `review` on the section (the dialog's own look). */
  className: string;
  icon: IconName;
  title: ReactNode;
  /** Shown after the title (a count, a switch); absent = nothing. */
  beside?: ReactNode;
  /** Shown before Close at the header's end; absent = nothing. */
  tools?: ReactNode;
  onClose: () => void;
  children: ReactNode;
}

export function ReviewDialog({ className, icon, title, beside, tools, onClose, children }: ReviewDialogProps) {
  const titleId = useId();
  const dialog = useRef<HTMLElement>(null);
  useModal(dialog, onClose);
  return (
    <div className="overlay" onMouseDown={(e) => e.target === e.currentTarget && onClose()}>
      <section
        className={`review ${className}`}
        role="dialog"
        aria-modal="true"
        aria-labelledby={titleId}
        tabIndex={-1}
        ref={dialog}
      >
        <header className="review-head">
          <Icon name={icon} />
          <h2 id={titleId}>{title}</h2>
          {beside}
          <span className="spacer" />
          {tools}
          <button type="button" className="icon-button" aria-label="Close" onClick={onClose}>
            <Icon name="x" />
          </button>
        </header>
        {children}
      </section>
    </div>
  );
}
