// The protocol's method tables, retyped per key so that indexing with a generic method keeps the link
// between a method and its schema (TypeScript checks each key of these assignments).
import type { z } from 'zod';
import { ClientRequests, ServerNotifications, ServerRequests } from '../../src-preload/protocol';
import type {
  ClientRequestMethod,
  NotificationParams,
  ResultOf,
  ServerNotificationMethod,
  ServerRequestMethod,
  ServerRequestParams,
  ServerRequestResultInput,
} from '../../src-preload/protocol';

export const resultSchemas: { [K in ClientRequestMethod]: { result: z.ZodType<ResultOf<K>> } } = ClientRequests;

export const notificationSchemas: { [K in ServerNotificationMethod]: z.ZodType<NotificationParams<K>> } = ServerNotifications;

export const serverRequestSchemas: {
  [K in ServerRequestMethod]: {
    params: z.ZodType<ServerRequestParams<K>>;
    result: z.ZodType<unknown, ServerRequestResultInput<K>>;
  };
} = ServerRequests;
