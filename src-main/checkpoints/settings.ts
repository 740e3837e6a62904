/** The `[checkpoints]` config table turned into service options. */
import { isAbsolute, join, resolve } from 'node:path';
import type { WeftConfig } from '../config/schema';
import type { CheckpointServiceOptions } from './service';
import { DEFAULT_LIMITS, DEFAULT_RETENTION } from './types';

export interface CheckpointSettings {
  enabled: boolean;
  service: CheckpointServiceOptions;
  worktreesDir: string;
}

export function checkpointSettings(config: Pick<WeftConfig, 'checkpoints'>, weftHome: string): CheckpointSettings {
  const table = config.checkpoints ?? {};
  const worktrees = table.worktrees_dir;
  return {
    enabled: table.enabled !== false,
    service: {
      weftHome,
      limits: {
        maxFileBytes: table.max_file_bytes ?? DEFAULT_LIMITS.maxFileBytes,
        maxTurnBytes: table.max_turn_bytes ?? DEFAULT_LIMITS.maxTurnBytes,
      },
      retention: {
        keepTurns: table.keep_turns ?? DEFAULT_RETENTION.keepTurns,
        keepDays: table.keep_days ?? DEFAULT_RETENTION.keepDays,
      },
    },
    worktreesDir:
      worktrees === undefined || worktrees === ''
        ? join(weftHome, 'worktrees')
        : isAbsolute(worktrees)
          ? worktrees
          : resolve(weftHome, worktrees),
  };
}
