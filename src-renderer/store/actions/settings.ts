// The composer's settings (model, effort, approvals, sandbox), the new-thread defaults from config, the
// providers and their keys, and the Settings dialog.
import { environmentParam, failureOn, projectPlace } from '../project-key';
import type { ThreadStartResult } from '../../../src-preload/protocol';
import {
  AskForApproval as AskForApprovalSchema,
  ReasoningEffort as ReasoningEffortSchema,
  SandboxMode as SandboxModeSchema,
} from '../../../src-preload/protocol';
import { sandboxModeOf } from '../selectors';
import { emptySettings, setUi } from '../store';
import type { SettingKey, Settings, SettingsSection } from '../store';
import type { ActionContext } from './context';

type SettingsOf = Partial<
  Pick<ThreadStartResult, 'model' | 'approvalPolicy' | 'weftApprovalPolicy' | 'sandbox' | 'reasoningEffort'>
>;

export function createSettings(ctx: ActionContext) {
  const { client, store, get, attempt } = ctx;
  let defaults: Settings = emptySettings;

  /** The settings a started, resumed or forked thread runs with (the composer's where it says none). */
  const settingsFrom = (result: SettingsOf): Settings => ({
    model: result.model ?? get().ui.settings.model,
    effort: ReasoningEffortSchema.safeParse(result.reasoningEffort).data ?? get().ui.settings.effort,
    approvalPolicy:
      result.weftApprovalPolicy ??
      AskForApprovalSchema.safeParse(result.approvalPolicy).data ??
      get().ui.settings.approvalPolicy,
    sandbox: result.sandbox === undefined ? get().ui.settings.sandbox : sandboxModeOf(result.sandbox),
  });

  /** The shown project's machine, for the requests of Settings: nothing for this one. */
  const on = (): { weftEnvironment?: string } => environmentParam(get().data.cwd ?? '');
  const failed = (error: unknown, what: string): string => failureOn(on().weftEnvironment, error, what);

  const refreshProviders = async (): Promise<void> => {
    // The providers of the shown project's machine (for a project on an environment, those there).
    const project = get().data.cwd;
    const cwd = project === null ? null : projectPlace(project).folder;
    const providers = await client.request('weft/provider/list', { cwd, ...on() }).catch(() => null);
    // Still the project asked about: a slow environment's answer does not replace another's.
    if (providers !== null && get().data.cwd === project) setUi(store, { providers });
  };

  const loadDefaults = async (): Promise<void> => {
    // The project shown says the default model (its trusted .weft/config.toml), not the server's own; a
    // project on an environment, that environment's config (its providers and models are there).
    const project = get().data.cwd;
    const place = project === null ? null : projectPlace(project);
    const environment = place?.environment ?? null;
    const on = environment === null ? {} : { weftEnvironment: environment };
    const folder = place?.folder ?? null;
    const models = await attempt('Could not list the models', () =>
      client.request('model/list', { weftCwd: folder, ...on }),
    );
    if (models !== undefined) setUi(store, { models: models.data });
    const config = await client.request('config/read', { cwd: folder, ...on }).catch(() => undefined);
    const value = (key: string): unknown => config?.config[key];
    const model = value('model');
    const effort = ReasoningEffortSchema.safeParse(value('model_reasoning_effort'));
    const policy = AskForApprovalSchema.safeParse(value('approval_policy'));
    const sandbox = SandboxModeSchema.safeParse(value('sandbox_mode'));
    const fallbackModel = models?.data.find((m) => m.isDefault === true)?.id ?? models?.data[0]?.id ?? null;
    defaults = {
      model: typeof model === 'string' ? model : fallbackModel,
      effort: effort.success ? effort.data : null,
      approvalPolicy: policy.success ? policy.data : null,
      sandbox: sandbox.success ? sandbox.data : null,
    };
    if (get().ui.activeThreadId === null && get().ui.changed.length === 0) setUi(store, { settings: defaults });
  };

  /** The settings the person changed among `keys`, as request overrides (undefined: not changed). */
  const overrides = (keys: readonly SettingKey[]) => {
    const { settings } = get().ui;
    const has = (key: SettingKey): boolean => keys.includes(key);
    return {
      model: has('model') && settings.model !== null ? settings.model : undefined,
      effort: has('effort') && settings.effort !== null ? settings.effort : undefined,
      approvalPolicy: has('approvalPolicy') && settings.approvalPolicy !== null ? settings.approvalPolicy : undefined,
      sandbox: has('sandbox') && settings.sandbox !== null ? settings.sandbox : undefined,
    };
  };

  const actions = {
    setSetting<K extends SettingKey>(key: K, value: Settings[K]): void {
      setUi(store, (ui) => ({
        settings: { ...ui.settings, [key]: value },
        changed: ui.changed.includes(key) ? ui.changed : [...ui.changed, key],
      }));
    },

    openSettings(section: SettingsSection | null = null): void {
      setUi(store, { settingsOpen: { section } });
      void refreshProviders();
    },

    closeSettings(): void {
      setUi(store, { settingsOpen: null });
    },

    refreshProviders,

    /** Reads the new-thread defaults again (after project config was trusted, say). */
    reloadDefaults: loadDefaults,

    /** Saves a key for the provider (never kept in the page); the error message, or null when saved. */
    async saveKey(providerId: string, apiKey: string): Promise<string | null> {
      try {
        await client.request('weft/auth/setKey', { providerId, apiKey, ...on() });
      } catch (error) {
        return failed(error, 'Not saved');
      }
      await refreshProviders();
      void loadDefaults();
      return null;
    },

    async clearKey(providerId: string): Promise<void> {
      await attempt('Could not remove the key', () => client.request('weft/auth/clearKey', { providerId, ...on() }));
      await refreshProviders();
    },

    /**
     * Writes one key of the user config.toml of the shown project's machine (an environment's there); the
     * new defaults apply to new threads. The error message, or null when written.
     */
    async writeConfig(keyPath: string, value: string | boolean): Promise<string | null> {
      try {
        await client.request('config/value/write', { keyPath, value, ...on() });
      } catch (error) {
        return failed(error, 'Not saved');
      }
      await Promise.all([refreshProviders(), loadDefaults()]);
      return null;
    },
  };

  return {
    /** The new-thread settings config gives (empty until read). */
    defaults: (): Settings => defaults,
    settingsFrom,
    loadDefaults,
    overrides,
    actions,
  };
}

export type SettingsActions = ReturnType<typeof createSettings>;
