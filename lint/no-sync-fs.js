// `weft/no-sync-fs`: no synchronous `node:fs` call (`readFileSync`, `fs.statSync`…) in src-main. The host
// serves every thread from one process (in the desktop app, the process every window waits on): a
// synchronous read, write or walk there stops every thread for as long as it takes. Each use of a `*Sync`
// function imported from `node:fs` / `fs` (by name, or through a namespace or default import) is reported.
// Code that runs only at start-up, in a command-line tool or in a child process is allowed by the table
// below, each file with its reason; anywhere else a single call may be allowed with an
// `// eslint-disable-next-line weft/no-sync-fs -- <reason>` comment.
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const FS_MODULES = new Set(['fs', 'node:fs']);

/**
 * Where synchronous fs calls are allowed, and why: files, or (ending in `/`) folders that never serve a
 * request. Paths are repository-relative. An entry whose reason starts with "Not yet converted" is debt:
 * code on a request path whose conversion belongs to work under way on that code; the reason names what
 * the calls do. `test/unit/lint/no-sync-fs.test.ts` checks that every entry still has such calls.
 */
export const allowedSyncFs = {
  'src-main/cli/':
    'command-line sub-commands: one process per command, and what they check before starting (a folder exists, the renderer is built) runs before any request',
  'src-main/safety/sandbox/probe-cache.ts':
    'the sandbox probe is memoized per process (probeBwrap): its cache file (a few hundred bytes) is read and written once per process, or by `weft doctor`',
  'src-main/safety/sandbox/bwrap-launch.ts':
    'firstExecutable: a stat and an access check of each of a few fixed system paths, for bwrap and bash inside the probe that runs once per process (or in `weft doctor`), and for the background prelude once per process',
  'src-main/safety/sandbox/bwrap-diagnose.ts':
    'reads two /proc/sys files of a few bytes to explain a failed probe (once per process, or in `weft doctor`)',
  'src-main/safety/sandbox/doctor.ts': '`weft doctor` only (src-main/cli/doctor.ts), never on a request',
  'src-main/safety/sandbox/writable-roots.ts':
    'Not yet converted: the writable roots of a command or patch (stat, realpath and readlink of the workspace, its `.git` / `.agents` entries and each path a patch writes): a fixed number of calls per tool call, whatever the project holds; converting them means making the approval policy asynchronous',
  'src-main/util/nofollow.ts':
    "Not yet converted: the directory handles of apply_patch's synchronous apply (one open per folder written); moving big patches off the main thread is the apply_patch work under way",
  'src-main/tools/apply-patch/apply.ts':
    'Not yet converted: apply_patch writes its files synchronously (atomic all-or-nothing commit); moving big patches off the main thread is the apply_patch work under way',
  'src-main/tools/apply-patch/plan.ts':
    'Not yet converted: files up to 256 KiB are read synchronously while planning (larger ones asynchronously); part of the apply_patch work under way',
  'src-main/store/rollout-source.ts':
    'Not yet converted: the synchronous rollout reader (fd variant) used by the store alongside the asynchronous one; the store streaming work under way moves fork and read to the async reader',
  'src-main/store/rollout-writer.ts':
    "Not yet converted: opening a rollout (a stat and a one-byte read of its end) and the writer's fallback append when a batch cannot go through its handle; the batched writes themselves are asynchronous",
  'src-main/store/fork-file.ts':
    'Not yet converted: a forked rollout is written synchronously (fsync + rename); part of the store streaming work under way on fork',
  'src-main/store/thread-store.ts':
    'Not yet converted: mkdir of the sessions folder at open, and archive / unarchive (a rename and a stat of one rollout)',
  'src-main/store/outline-snapshot.ts':
    "Not yet converted: a thread's saved outline (one file of at most a few MB) is read and written whole; part of the store streaming work under way",
  'src-main/store/index-db.ts':
    'opening the SQLite index, and setting an unusable one aside (at store open, or when SQLite reports corruption): a stat, a mkdir and a few renames; better-sqlite3 itself is synchronous',
  'src-main/store/index-scan.ts': 'Not yet converted: one fstat per rollout while the index is (re)built',
  'src-main/store/catalog.ts':
    'Not yet converted: listing folders of rollouts and a stat per listed thread while the index is (re)built',
  'src-main/store/index-changes.ts':
    "the index check's walk of the rollout folders and its stat of each rollout: in the start-up check's worker thread, or on the main thread in slices of a few ms (a repair after damage, `weft threads reindex`)",
  'src-main/store/codex-homes.ts':
    'Not yet converted: the list of imported Codex homes (a small JSON file) and their session_index.jsonl',
  'src-main/store/lock.ts':
    'one mkdir of the locks folder when a thread is opened for writing (the lock itself is a SQLite file, synchronous)',
  'src-main/store/session-index.ts': "Not yet converted: one appended line when a thread's name is set",
};

function allowedReason(relPath) {
  for (const [entry, reason] of Object.entries(allowedSyncFs)) {
    if (entry.endsWith('/') ? relPath.startsWith(entry) : relPath === entry) return reason;
  }
  return null;
}

const isSync = (name) => typeof name === 'string' && /Sync$/.test(name);

/** @type {import('eslint').Rule.RuleModule} */
export const noSyncFs = {
  meta: {
    type: 'problem',
    docs: { description: 'No synchronous node:fs calls in src-main outside start-up and command-line code.' },
    schema: [],
    messages: {
      sync:
        '{{name}} blocks the event loop the host serves every thread from: use node:fs/promises. ' +
        'If this code runs only at start-up or in a command-line tool, add the file with its reason to ' +
        'allowedSyncFs in lint/no-sync-fs.js; for one call, "// eslint-disable-next-line weft/no-sync-fs -- <reason>".',
    },
  },
  create(context) {
    const rel = path.relative(REPO, context.filename).split(path.sep).join('/');
    if (allowedReason(rel) !== null) return {};
    const sourceCode = context.sourceCode;
    const report = (node, name) => context.report({ node, messageId: 'sync', data: { name } });
    return {
      ImportDeclaration(node) {
        if (!FS_MODULES.has(node.source.value)) return;
        for (const specifier of node.specifiers) {
          const [variable] = sourceCode.getDeclaredVariables(specifier);
          if (variable === undefined) continue;
          if (specifier.type === 'ImportSpecifier') {
            const imported =
              specifier.imported.type === 'Identifier' ? specifier.imported.name : specifier.imported.value;
            if (!isSync(imported)) continue;
            for (const reference of variable.references) report(reference.identifier, imported);
            continue;
          }
          // `import * as fs from 'node:fs'` / `import fs from 'node:fs'`: fs.xSync(...)
          for (const reference of variable.references) {
            const parent = reference.identifier.parent;
            if (parent?.type !== 'MemberExpression' || parent.object !== reference.identifier) continue;
            const name = parent.computed
              ? parent.property.type === 'Literal'
                ? parent.property.value
                : null
              : parent.property.name;
            if (isSync(name)) report(parent, `${reference.identifier.name}.${name}`);
          }
        }
      },
    };
  },
};
