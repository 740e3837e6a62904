import type { ServerNotification } from '../../../src-preload/protocol';
import type { ThreadStore } from '../../store/thread-store';
import type { ClientFolders } from '../client-folders';
import type { ReadStates } from '../read-states';
import type { HostEnvironment } from '../thread-factory';
import type { ThreadManager } from '../thread-manager';

/** What the request handlers share. */
export interface HandlerContext {
  store: ThreadStore;
  manager: ThreadManager;
  environment: HostEnvironment;
  readStates: ReadStates;
  onSessionEvent: (threadId: string, n: ServerNotification) => void;
  /** The project folders each client named by listing their threads (`fs/readFile` reads in them). */
  folders: ClientFolders;
}
