// `weft/git/*`: the Changes panel's requests. git runs as child processes (never blocking); its
// failures are answered with the command and git's message, verbatim.
import { WeftGitErrorCodes } from '../../../src-preload/protocol';
import { DiscardConflictError, DiscardStore, type DiscardRecord } from '../../checkpoints/discards';
import { keyedModelClient } from '../../core/keyed-model-client';
import { checkout, listBranches, push, trackedChanges } from '../../git/branches';
import { commit, discard, fileDiff, GitRequestError, lastCommit, requireRoot, stage, unstage } from '../../git/changes';
import { generateCommitMessage } from '../../git/commit-message';
import { GitCommandError } from '../../safety/git/run';
import { OutsideRootError } from '../../util/workspace-file';
import { gitStatus } from '../../git/status';
import type { HandlerTable } from '../dispatcher';
import { RpcError } from '../rpc-error';
import { threadConfig } from '../thread-factory';
import type { HandlerContext } from './context';

type GitHandlers = Pick<
  HandlerTable,
  | 'weft/git/status'
  | 'weft/git/diff'
  | 'weft/git/stage'
  | 'weft/git/unstage'
  | 'weft/git/discard'
  | 'weft/git/discard/list'
  | 'weft/git/discard/restore'
  | 'weft/git/commit'
  | 'weft/git/lastCommit'
  | 'weft/git/commitMessage'
  | 'weft/git/push'
  | 'weft/git/branches'
  | 'weft/git/checkout'
>;

/** git's failures and Weft's refusals as JSON-RPC errors a person can read. */
export function gitRpcError(error: unknown): unknown {
  if (error instanceof GitCommandError) {
    return new RpcError(WeftGitErrorCodes.GitFailed, error.message, {
      command: error.command,
      exitCode: error.exitCode,
      stderr: error.stderr,
    });
  }
  if (error instanceof GitRequestError) return new RpcError(WeftGitErrorCodes.NotARepository, error.message);
  if (error instanceof OutsideRootError) return new RpcError(WeftGitErrorCodes.NotARepository, error.message);
  if (error instanceof DiscardConflictError)
    return new RpcError(WeftGitErrorCodes.RestoreConflict, error.message, { path: error.path });
  return error;
}

async function guarded<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    throw gitRpcError(error);
  }
}

function publicRecord(r: DiscardRecord) {
  return {
    id: r.id,
    root: r.root,
    path: r.path,
    kind: r.kind,
    createdAt: r.createdAt,
    summary: r.summary,
    restored: r.restored,
  };
}

export function gitHandlers(ctx: HandlerContext): GitHandlers {
  const { environment, manager } = ctx;
  const discards = new DiscardStore(environment.weftHome);
  return {
    'weft/git/status': (params) => guarded(() => gitStatus(params.cwd)),
    'weft/git/diff': (params) => guarded(async () => fileDiff(await requireRoot(params.cwd), params.path, params.area)),
    'weft/git/stage': (params) =>
      guarded(async () => {
        await stage(await requireRoot(params.cwd), params.path, params);
        return {};
      }),
    'weft/git/unstage': (params) =>
      guarded(async () => {
        await unstage(await requireRoot(params.cwd), params.path, params);
        return {};
      }),
    'weft/git/discard': (params) =>
      guarded(async () => {
        const record = await discard(await requireRoot(params.cwd), params.path, params, discards);
        return { discard: publicRecord(record) };
      }),
    'weft/git/discard/list': (params) =>
      guarded(async () => {
        const root = await requireRoot(params.cwd);
        return { discards: (await discards.list(root)).map(publicRecord) };
      }),
    'weft/git/discard/restore': (params) =>
      guarded(async () => {
        const root = await requireRoot(params.cwd);
        const found = await discards.get(params.id);
        if (found === null || found.root !== root)
          throw new GitRequestError(`there is no discard ${params.id} in ${root}`);
        return { discard: publicRecord(await discards.restore(params.id, params.force === true)) };
      }),
    'weft/git/commit': (params) =>
      guarded(async () => commit(await requireRoot(params.cwd), params.message, params.amend === true)),
    'weft/git/lastCommit': (params) =>
      guarded(async () => ({ commit: await lastCommit(await requireRoot(params.cwd)) })),
    'weft/git/commitMessage': (params) =>
      guarded(async () => {
        const root = await requireRoot(params.cwd);
        const entry = params.threadId == null ? undefined : manager.get(params.threadId);
        if (entry !== undefined) {
          const { modelClient } = entry.session.options;
          return {
            message: await generateCommitMessage(
              root,
              modelClient,
              entry.session.currentSettings.model,
              AbortSignal.timeout(120_000),
            ),
          };
        }
        const { loaded, provider } = await threadConfig(environment, {}, params.cwd);
        const client = environment.modelClient ?? keyedModelClient(provider, environment.keyStore);
        return {
          message: await generateCommitMessage(root, client, loaded.config.model, AbortSignal.timeout(120_000)),
        };
      }),
    'weft/git/push': (params, client) =>
      guarded(async () => {
        const root = await requireRoot(params.cwd);
        const progressId = params.progressId;
        return push(root, params.remote ?? null, (line) => {
          if (progressId != null) client.notify({ method: 'weft/git/progress', params: { progressId, line } });
        });
      }),
    'weft/git/branches': (params) => guarded(async () => listBranches(await requireRoot(params.cwd))),
    'weft/git/checkout': (params) =>
      guarded(async () => {
        const root = await requireRoot(params.cwd);
        if (params.allowDirty !== true) {
          const dirty = trackedChanges((await gitStatus(root)).files);
          if (dirty.length > 0) {
            throw new RpcError(
              WeftGitErrorCodes.UncommittedChanges,
              `there are uncommitted changes (${dirty.slice(0, 5).join(', ')}${dirty.length > 5 ? `, and ${dirty.length - 5} more` : ''}); commit or stash them, or switch anyway`,
              { files: dirty },
            );
          }
        }
        await checkout(root, params.branch, params.create === true);
        return { branch: params.branch };
      }),
  };
}
