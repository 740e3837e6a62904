// Checkpoints in Settings: how much room the store takes and how it is kept in check.
import { useEffect, useId, useState } from 'react';
import { useController } from '../../store/app-context';
import { failureText, SectionHeading, useSettingsPlace } from './settings-place';

function size(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  const units = ['KiB', 'MiB', 'GiB', 'TiB'];
  let value = bytes / 1024;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit += 1;
  }
  return `${value >= 100 ? value.toFixed(0) : value.toFixed(1)} ${units[unit] ?? 'TiB'}`;
}

export function CheckpointsSection() {
  const controller = useController();
  const [bytes, setBytes] = useState<number | null>(null);
  const [error, setError] = useState<string | null>(null);
  const titleId = useId();
  const place = useSettingsPlace();

  useEffect(() => {
    let live = true;
    controller.request('weft/checkpoints/size', { ...place.on }).then(
      (result) => live && setBytes(result.bytes),
      (e: unknown) => live && setError(failureText(place, e, 'Could not read the checkpoint store')),
    );
    return () => {
      live = false;
    };
  }, [controller, place]);

  return (
    <section className="settings-section" aria-labelledby={titleId}>
      <SectionHeading id={titleId}>Checkpoints</SectionHeading>
      <p className="muted small">
        What each turn changed in your files, kept so “Undo this turn” and “Restore to here” can put them back. Older
        ones go by <code>[checkpoints] keep_turns</code> and <code>keep_days</code> in config.toml;{' '}
        <code>weft checkpoints gc</code> frees the room now.
      </p>
      <div className="checkpoint-size">
        <span>Store size</span>
        <strong aria-label="Checkpoint store size">
          {bytes === null ? (error === null ? '…' : '—') : size(bytes)}
        </strong>
      </div>
      {error !== null && (
        <p className="settings-status settings-status-error" role="alert">
          {error}
        </p>
      )}
    </section>
  );
}
