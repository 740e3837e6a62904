// The app's icons: 16 px line drawings on a 16 × 16 grid, drawn with currentColor.
import type { ReactElement } from 'react';

const paths = {
  plus: <path d="M8 3v10M3 8h10" />,
  search: (
    <>
      <circle cx="7" cy="7" r="4.25" />
      <path d="M10.25 10.25 13.5 13.5" />
    </>
  ),
  folder: <path d="M2 4.5c0-.55.45-1 1-1h3.2l1.3 1.5H13c.55 0 1 .45 1 1v6.5c0 .55-.45 1-1 1H3c-.55 0-1-.45-1-1z" />,
  terminal: (
    <>
      <rect x="1.75" y="2.75" width="12.5" height="10.5" rx="1.5" />
      <path d="m4.5 6 2 2-2 2M8 10h3.5" />
    </>
  ),
  file: (
    <>
      <path d="M4 1.75h5l3 3v9.5H4z" />
      <path d="M9 1.75v3h3" />
    </>
  ),
  chevronRight: <path d="m6 3.5 4.5 4.5L6 12.5" />,
  chevronDown: <path d="M3.5 6 8 10.5 12.5 6" />,
  chevronUp: <path d="M3.5 10 8 5.5 12.5 10" />,
  check: <path d="m3 8.5 3 3 7-7" />,
  x: <path d="m4 4 8 8M12 4l-8 8" />,
  stop: <rect x="4" y="4" width="8" height="8" rx="1.5" fill="currentColor" stroke="none" />,
  arrowUp: <path d="M8 13V3.5M4 7.5 8 3.5l4 4" />,
  paperclip: (
    <path d="M12.5 7.5 7.6 12.4a3 3 0 0 1-4.25-4.25l5.3-5.3a2 2 0 0 1 2.83 2.83L6.2 10.96a1 1 0 0 1-1.42-1.42L9.5 4.8" />
  ),
  more: (
    <>
      <circle cx="3.5" cy="8" r="1" fill="currentColor" stroke="none" />
      <circle cx="8" cy="8" r="1" fill="currentColor" stroke="none" />
      <circle cx="12.5" cy="8" r="1" fill="currentColor" stroke="none" />
    </>
  ),
  fork: (
    <>
      <circle cx="4.5" cy="3.5" r="1.5" />
      <circle cx="11.5" cy="3.5" r="1.5" />
      <circle cx="8" cy="12.5" r="1.5" />
      <path d="M4.5 5v1.5c0 1 .8 1.75 1.75 1.75h3.5c1 0 1.75-.8 1.75-1.75V5M8 8.25V11" />
    </>
  ),
  archive: (
    <>
      <rect x="2" y="3" width="12" height="3" rx="0.75" />
      <path d="M3 6v6.25c0 .4.35.75.75.75h8.5c.4 0 .75-.35.75-.75V6M6.5 8.75h3" />
    </>
  ),
  pencil: <path d="m10.5 2.75 2.75 2.75L6 12.75l-3.25.5.5-3.25z" />,
  pin: <path d="M5.75 2h4.5M6.75 2v3.75L4.5 9.25h7L9.25 5.75V2M8 9.25V14" />,
  alert: (
    <>
      <path d="M8 2 14.5 13.5h-13z" />
      <path d="M8 6.5v3M8 11.5v.01" />
    </>
  ),
  info: (
    <>
      <circle cx="8" cy="8" r="6" />
      <path d="M8 7.25v3.75M8 5v.01" />
    </>
  ),
  shield: <path d="M8 1.75 13 3.5v4c0 3.2-2.2 5.6-5 6.75C5.2 13.1 3 10.7 3 7.5v-4z" />,
  sparkle: (
    <path d="M8 2.5c.4 2.6 1.9 4.1 4.5 4.5-2.6.4-4.1 1.9-4.5 4.5-.4-2.6-1.9-4.1-4.5-4.5 2.6-.4 4.1-1.9 4.5-4.5z" />
  ),
  list: <path d="M6 4h7.5M6 8h7.5M6 12h7.5M2.5 4h.01M2.5 8h.01M2.5 12h.01" />,
  image: (
    <>
      <rect x="2" y="2.75" width="12" height="10.5" rx="1.5" />
      <circle cx="5.75" cy="6.25" r="1.1" />
      <path d="m2.5 11.5 3.5-3 2.5 2 2-1.5 3 2.5" />
    </>
  ),
  globe: (
    <>
      <circle cx="8" cy="8" r="6" />
      <path d="M2 8h12M8 2c1.8 1.7 2.6 3.7 2.6 6S9.8 12.3 8 14C6.2 12.3 5.4 10.3 5.4 8S6.2 3.7 8 2z" />
    </>
  ),
  plug: <path d="M6 1.75v3M10 1.75v3M4.25 4.75h7.5v2.5a3.75 3.75 0 0 1-7.5 0zM8 11v3.25" />,
  compress: <path d="M4 6.5h8M4 9.5h8M8 1.5v3l-1.5-1.5M8 4.5l1.5-1.5M8 14.5v-3l-1.5 1.5M8 11.5l1.5 1.5" />,
  diff: (
    <>
      <path d="M5 2.5v6M2 5.5h6M2 12h6" />
      <rect x="9.75" y="2.75" width="4.5" height="10.5" rx="1" />
    </>
  ),
  columns: (
    <>
      <rect x="1.75" y="2.75" width="12.5" height="10.5" rx="1.25" />
      <path d="M8 2.75v10.5" />
    </>
  ),
  rows: (
    <>
      <rect x="1.75" y="2.75" width="12.5" height="10.5" rx="1.25" />
      <path d="M1.75 8h12.5" />
    </>
  ),
  clock: (
    <>
      <circle cx="8" cy="8" r="6" />
      <path d="M8 4.75V8l2.25 1.5" />
    </>
  ),
  user: (
    <>
      <circle cx="8" cy="5.5" r="2.75" />
      <path d="M2.75 14c.6-2.6 2.6-4 5.25-4s4.65 1.4 5.25 4" />
    </>
  ),
  undo: <path d="M5.5 3.5 2.5 6.5l3 3M2.5 6.5h7a3.5 3.5 0 0 1 0 7H7" />,
  redo: <path d="m10.5 3.5 3 3-3 3M13.5 6.5h-7a3.5 3.5 0 0 0 0 7H9" />,
  refresh: <path d="M13 8a5 5 0 1 1-1.5-3.55M13 2.5v2.75h-2.75" />,
  download: <path d="M8 2v8M4.5 6.5 8 10l3.5-3.5M3 13.5h10" />,
  settings: (
    <>
      <circle cx="8" cy="8" r="2" />
      <path d="M8 1.75v1.5M8 12.75v1.5M1.75 8h1.5M12.75 8h1.5M3.6 3.6l1.05 1.05M11.35 11.35l1.05 1.05M3.6 12.4l1.05-1.05M11.35 4.65l1.05-1.05" />
    </>
  ),
  sidebar: (
    <>
      <rect x="1.75" y="2.75" width="12.5" height="10.5" rx="1.5" />
      <path d="M6 2.75v10.5" />
    </>
  ),
} satisfies Record<string, ReactElement>;

export type IconName = keyof typeof paths;

export function Icon({ name, size = 16, className }: { name: IconName; size?: number; className?: string }) {
  return (
    <svg
      className={`icon ${className ?? ''}`}
      width={size}
      height={size}
      viewBox="0 0 16 16"
      fill="none"
      stroke="currentColor"
      strokeWidth="1.4"
      strokeLinecap="round"
      strokeLinejoin="round"
      aria-hidden="true"
      focusable="false"
    >
      {paths[name]}
    </svg>
  );
}

/** A small spinning arc, for "working" states. */
export function Spinner({ size = 14, label }: { size?: number; label?: string }) {
  return (
    <svg
      className="spinner"
      width={size}
      height={size}
      viewBox="0 0 16 16"
      role={label === undefined ? undefined : 'img'}
      aria-label={label}
      aria-hidden={label === undefined ? true : undefined}
    >
      <circle cx="8" cy="8" r="6" fill="none" stroke="currentColor" strokeOpacity="0.25" strokeWidth="2" />
      <path d="M8 2a6 6 0 0 1 6 6" fill="none" stroke="currentColor" strokeWidth="2" strokeLinecap="round" />
    </svg>
  );
}
