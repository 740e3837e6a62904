import { TurnTask, type TurnEnd, type TurnHost } from './base';
import { shellCommandItem, type UserShellInput } from './shell-command-item';
import type { TurnSettings } from '../types';

/**
 * A turn that only runs the user's command (`!cmd` while no turn runs): no model request; the model sees
 * the command and its output with the next turn's first.
 */
export class UserShellTurn extends TurnTask {
  constructor(
    host: TurnHost,
    settings: TurnSettings,
    private readonly input: UserShellInput,
  ) {
    super(host, settings);
  }

  protected async run(): Promise<TurnEnd> {
    this.host.appendHistory(await shellCommandItem(this, this.input));
    return { status: 'completed', error: null };
  }
}
