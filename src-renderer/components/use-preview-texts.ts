// The texts of one file of a checkpoint preview (`weft/checkpoints/preview`): those the preview sent, or for
// a file it deferred (the answer carries the first files' texts only), those asked for one file at a time as
// the file comes near the view. Used by the restore dialog and by the Changes panel outside git.
import { useEffect, useState, type RefObject } from 'react';
import type { CheckpointPreviewFile } from '../../src-preload/protocol';
import { useController } from '../store/app-context';
import { messageOf } from '../store/checkpoint-ui';
import { whenNear } from './when-near';

export type FileTexts = Pick<CheckpointPreviewFile, 'current' | 'restored' | 'binary'>;

/**
 * The file's texts: those the preview sent, or for a file it `deferred`, those asked for once its section
 * comes within a screenful of the view (when-near.ts; `weft/checkpoints/previewFile`). Null while they come.
 */
export function usePreviewTexts(
  file: CheckpointPreviewFile,
  target: { threadId: string; beforeTurnId: string },
  section: RefObject<HTMLElement | null>,
): FileTexts | { failed: string } | null {
  const controller = useController();
  // Kept with the file they are for: a new preview (the Changes panel asks again after each turn) brings new
  // file objects, whose texts are asked for anew (before, the first answer stayed, however old).
  const [asked, setAsked] = useState<{ for: CheckpointPreviewFile; texts: FileTexts | { failed: string } } | null>(
    null,
  );
  const deferred = file.deferred === true;
  useEffect(() => {
    const element = section.current;
    if (!deferred || element === null) return;
    let cancelled = false;
    const stopWaiting = whenNear(element, () => {
      controller
        .request('weft/checkpoints/previewFile', {
          threadId: target.threadId,
          beforeTurnId: target.beforeTurnId,
          path: file.path,
        })
        .then(
          (texts) => !cancelled && setAsked({ for: file, texts }),
          (e: unknown) => !cancelled && setAsked({ for: file, texts: { failed: messageOf(e) } }),
        );
    });
    return () => {
      cancelled = true;
      stopWaiting();
    };
  }, [controller, deferred, file, section, target.threadId, target.beforeTurnId]);
  if (!deferred) return file;
  // The same file's texts from an earlier preview stay shown until the new ones come: the diff is updated in
  // place rather than swapped for "Loading" (and the list's height with it) after every turn.
  return asked !== null && asked.for.path === file.path ? asked.texts : null;
}
