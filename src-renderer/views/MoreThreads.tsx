// The end of a thread list that has more threads on the server: a row that fetches the next page as it
// comes near the view (scrolling there is all it takes), and says so meanwhile.
import { useEffect, useRef } from 'react';
import { Spinner } from '../components/Icon';
import { useController } from '../store/app-context';

export function MoreThreads({ list, shown }: { list: 'live' | 'archived' | 'results'; shown: number }) {
  const controller = useController();
  const row = useRef<HTMLLIElement>(null);
  // Observed anew after each page (`shown` changes): a row still in view after a short page asks again.
  useEffect(() => {
    const element = row.current;
    if (element === null) return;
    const observer = new IntersectionObserver(
      (entries) => {
        if (entries.some((entry) => entry.isIntersecting)) void controller.loadMore(list);
      },
      // Within a screenful of the end, so the next page is usually there before the wheel reaches it.
      { root: element.closest('.threads'), rootMargin: '0px 0px 400px 0px' },
    );
    observer.observe(element);
    return () => observer.disconnect();
  }, [controller, list, shown]);
  return (
    <li ref={row} className="more-threads" role="status">
      <Spinner size={12} /> Loading more threads…
    </li>
  );
}
