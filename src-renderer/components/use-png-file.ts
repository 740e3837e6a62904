// A PNG file of the host (a browser screenshot) as a data URL, read through `fs/readFile`.
import { useEffect, useState } from 'react';
import { useController } from '../store/app-context';

/** The file as a data URL; undefined while it is read, null when it cannot be. Key the caller by path. */
export function usePngFile(path: string): string | null | undefined {
  const controller = useController();
  const [src, setSrc] = useState<string | null | undefined>(undefined);
  useEffect(() => {
    let live = true;
    void controller.readPngFile(path).then((data) => live && setSrc(data));
    return () => {
      live = false;
    };
  }, [controller, path]);
  return src;
}
