// The Electron IPC transport: carries JSON-RPC messages between each window's preload and the shared
// dispatcher. Every message is checked to come from the main frame of one of our windows showing our
// app:// page (isTrustedSender); anything else is dropped and logged.
import { webContents } from 'electron';
import type { IpcMain, IpcMainEvent, IpcMainInvokeEvent, WebContents } from 'electron';
import { IpcChannels } from '../../src-preload/bridge';
import type { ShellEvent } from '../../src-preload/bridge';
import { isTrustedSender } from './app-origin';
import type { IpcSenderInfo } from './app-origin';
import type { IpcRouter } from './ipc-router';

export interface IpcTransportOptions {
  ipcMain: IpcMain;
  router: IpcRouter;
  /** webContents ids of our project windows (the set is read on every message). */
  windowContentsIds: () => ReadonlySet<number>;
  log: (message: string) => void;
}

function senderInfo(event: IpcMainEvent | IpcMainInvokeEvent): IpcSenderInfo {
  const frame = event.senderFrame;
  return {
    webContentsId: event.sender.id,
    frameUrl: frame === null ? null : frame.url,
    isMainFrame: frame !== null && frame.parent === null,
  };
}

/** Starts listening; returns the function that stops it and closes every connection. */
export function attachIpcTransport(options: IpcTransportOptions): () => void {
  const { ipcMain, router, log } = options;
  const watched = new Set<number>();

  const trusted = (event: IpcMainEvent, channel: string): boolean => {
    const info = senderInfo(event);
    if (isTrustedSender(info, options.windowContentsIds())) return true;
    log(
      `Dropped an IPC message on ${channel} from webContents ${info.webContentsId} (${info.frameUrl ?? 'no frame'}): not our page.`,
    );
    return false;
  };

  const watch = (contents: WebContents): void => {
    if (watched.has(contents.id)) return;
    watched.add(contents.id);
    const id = contents.id;
    const end = (): void => router.close(id);
    contents.on('did-start-navigation', (details) => {
      if (details.isMainFrame && !details.isSameDocument) end();
    });
    contents.on('render-process-gone', end);
    contents.once('destroyed', () => {
      end();
      watched.delete(id);
    });
  };

  const onOpen = (event: IpcMainEvent): void => {
    if (!trusted(event, IpcChannels.open)) return;
    const contents = event.sender;
    watch(contents);
    router.open({
      id: contents.id,
      isDestroyed: () => contents.isDestroyed(),
      send: (message) => contents.send(IpcChannels.rpc, message),
    });
  };

  const onRpc = (event: IpcMainEvent, message: unknown): void => {
    if (!trusted(event, IpcChannels.rpc)) return;
    if (!router.receive(event.sender.id, message)) {
      log(`Dropped an IPC message from webContents ${event.sender.id}: its page never opened a connection.`);
    }
  };

  ipcMain.on(IpcChannels.open, onOpen);
  ipcMain.on(IpcChannels.rpc, onRpc);
  return () => {
    ipcMain.removeListener(IpcChannels.open, onOpen);
    ipcMain.removeListener(IpcChannels.rpc, onRpc);
    router.closeAll();
  };
}

/**
 * Answers `ipcRenderer.invoke(channel, argument)` from our pages only; an invoke from anything else
 * rejects. Returns the function that removes the handler.
 */
export function handleTrustedInvoke(
  options: Pick<IpcTransportOptions, 'ipcMain' | 'windowContentsIds' | 'log'>,
  channel: string,
  handler: (argument: unknown, senderId: number) => Promise<unknown>,
): () => void {
  options.ipcMain.handle(channel, async (event, argument: unknown) => {
    const info = senderInfo(event);
    if (!isTrustedSender(info, options.windowContentsIds())) {
      options.log(
        `Refused ${channel} from webContents ${info.webContentsId} (${info.frameUrl ?? 'no frame'}): not our page.`,
      );
      throw new Error(`${channel} is only available to Weft's own pages.`);
    }
    return handler(argument, event.sender.id);
  });
  return () => options.ipcMain.removeHandler(channel);
}

/** Sends a shell event (see ShellEvent) to the page of `contentsId`, if it still exists. */
export function sendShellEvent(contentsId: number, event: ShellEvent): void {
  const contents = webContents.fromId(contentsId);
  if (contents !== undefined && !contents.isDestroyed()) contents.send(IpcChannels.shell, event);
}
