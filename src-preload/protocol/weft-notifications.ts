// When Weft tells the person that a thread needs them or has ended (`[notifications]` in config.toml, Weft's
// own table): one switch per kind, reminders of an unanswered request, and a sound. The desktop app and the
// browser page read the same table (the page through `config/read`).
import { z } from 'zod';
import { lazySchema } from './lazy-schema';

/** The kinds of news, each with its own switch. */
export const NOTIFICATION_KINDS = ['approval', 'question', 'turn_finished', 'turn_failed'] as const;
export type NotificationKind = (typeof NOTIFICATION_KINDS)[number];

/** `[notifications]` as written in config.toml; omitted keys take NOTIFICATION_DEFAULTS. */
export const NotificationsTable = lazySchema(() =>
  z.strictObject({
    /** A command or a patch waits for the person's approval. */
    approval: z.boolean().optional(),
    /** The agent asks the person a question. */
    question: z.boolean().optional(),
    turn_finished: z.boolean().optional(),
    turn_failed: z.boolean().optional(),
    /** Minutes between reminders of an approval or question still unanswered; 0 = tell once. */
    repeat_minutes: z
      .int()
      .min(0)
      .max(24 * 60)
      .optional(),
    /** Play a sound with each notification. */
    sound: z.boolean().optional(),
  }),
);
export type NotificationsTable = z.infer<typeof NotificationsTable>;
export type NotificationSettings = Required<NotificationsTable>;

export const NOTIFICATION_DEFAULTS: NotificationSettings = {
  approval: true,
  question: true,
  turn_finished: true,
  turn_failed: true,
  repeat_minutes: 0,
  sound: false,
};

/** The settings a config value gives: each valid key as written, the rest (and anything unreadable) by default. */
export function notificationSettings(value: unknown): NotificationSettings {
  const settings = { ...NOTIFICATION_DEFAULTS };
  if (typeof value !== 'object' || value === null) return settings;
  const given = new Map(Object.entries(value));
  for (const [key, schema] of Object.entries(NotificationsTable.shape)) {
    const parsed = schema.safeParse(given.get(key));
    if (parsed.success && parsed.data !== undefined) Object.assign(settings, { [key]: parsed.data });
  }
  return settings;
}
