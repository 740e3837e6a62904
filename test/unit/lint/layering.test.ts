// The layering rule itself (lint/layering.js): forbidden imports in fixture code are errors that name the
// rule and the allowed folders, allowed ones are not; every source folder has a row; the table in
// docs/ARCHITECTURE.md is the one lint enforces.
import { readFileSync, readdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { RuleTester } from 'eslint';
import tseslint from 'typescript-eslint';
import { describe, expect, it } from 'vitest';
import { layering, unitOf } from '../../../lint/layering.js';
import { layers, layeringTable } from '../../../lint/layers.js';

RuleTester.describe = describe;
RuleTester.it = it;
RuleTester.itOnly = it.only;

const repo = resolve(import.meta.dirname, '../../..');
const file = (rel: string): string => join(repo, rel);

const tester = new RuleTester({
  languageOptions: { parser: tseslint.parser, ecmaVersion: 2023, sourceType: 'module' },
});

/** The whole message people read: the rule, the import, and the folders the importer may import. */
const folderError = (from: string, to: string, specifier: string) => ({
  message: `Layering rule (docs/ARCHITECTURE.md): ${from} may not import ${to} ("${specifier}"). ${from} may import: ${(layers[from]?.may ?? []).join(', ') || 'no other folder'}.`,
});

tester.run('weft/layering', layering, {
  valid: [
    {
      name: 'the protocol imports zod and itself',
      filename: file('src-preload/protocol/x.ts'),
      code: "import { z } from 'zod';\nimport { ThreadId } from './common';",
    },
    {
      name: 'the core imports the tools',
      filename: file('src-main/core/x.ts'),
      code: "import { ToolRegistry } from '../tools/registry';",
    },
    {
      name: 'the server imports the core',
      filename: file('src-main/server/handlers/x.ts'),
      code: "import type { Session } from '../../core/session';",
    },
    {
      name: 'tools import safety',
      filename: file('src-main/tools/x.ts'),
      code: "import { probeBwrap } from '../safety/sandbox/linux-bwrap';",
    },
    {
      name: 'a file under src-main imports a Node built-in',
      filename: file('src-main/store/x.ts'),
      code: "import { readFileSync } from 'node:fs';\nimport path from 'path';",
    },
    {
      name: 'the electron folder imports electron',
      filename: file('src-main/electron/x.ts'),
      code: "import { app } from 'electron';\nimport { IpcChannels } from '../../src-preload/bridge';",
    },
    {
      name: 'the preload imports electron and its bridge',
      filename: file('src-preload/index.ts'),
      code: "import { contextBridge } from 'electron';\nimport { createWeftBridge } from './bridge';",
    },
    {
      name: 'views import components, store and the protocol',
      filename: file('src-renderer/views/x.tsx'),
      code: "import { Icon } from '../components/Icon';\nimport { useWeft } from '../store/app-context';\nimport type { Thread } from '../../src-preload/protocol';",
    },
    {
      name: 'the renderer imports browser packages',
      filename: file('src-renderer/components/x.tsx'),
      code: "import { useState } from 'react';\nimport { create } from 'zustand';",
    },
    {
      name: 'files outside the source roots are not checked',
      filename: file('test/unit/x.ts'),
      code: "import { Session } from '../../src-main/core/session';",
    },
  ],
  invalid: [
    // The examples of the issue that asked for this rule.
    {
      name: 'the protocol importing src-main/util/ids',
      filename: file('src-preload/protocol/x.ts'),
      code: "import { newItemId } from '../../src-main/util/ids';",
      errors: [folderError('src-preload/protocol', 'src-main/util', '../../src-main/util/ids')],
    },
    {
      name: 'the core importing the server',
      filename: file('src-main/core/x.ts'),
      code: "import { ThreadManager } from '../server/thread-manager';",
      errors: [folderError('src-main/core', 'src-main/server', '../server/thread-manager')],
    },
    {
      name: 'the core importing electron code',
      filename: file('src-main/core/x.ts'),
      code: "import { keyStore } from '../electron/keys';",
      errors: [folderError('src-main/core', 'src-main/electron', '../electron/keys')],
    },
    {
      name: 'the tools importing the core',
      filename: file('src-main/tools/x.ts'),
      code: "import { loadLocalImage } from '../core/user-input';",
      errors: [folderError('src-main/tools', 'src-main/core', '../core/user-input')],
    },
    {
      name: 'the store importing the server',
      filename: file('src-main/store/x.ts'),
      code: "import type { HandlerContext } from '../server/handlers/context';",
      errors: [folderError('src-main/store', 'src-main/server', '../server/handlers/context')],
    },
    {
      name: 'the renderer importing the preload bridge',
      filename: file('src-renderer/client/x.ts'),
      code: "import type { WeftBridge } from '../../src-preload/bridge';",
      errors: [folderError('src-renderer/client', 'src-preload/bridge', '../../src-preload/bridge')],
    },
    // More of the table.
    {
      name: 'safety importing the tools',
      filename: file('src-main/safety/sandbox/x.ts'),
      code: "import type { CommandLauncher } from '../../tools/exec/types';",
      errors: [folderError('src-main/safety', 'src-main/tools', '../../tools/exec/types')],
    },
    {
      name: 'components importing views',
      filename: file('src-renderer/components/x.tsx'),
      code: "import { useWeft } from '../views/context';",
      errors: [folderError('src-renderer/components', 'src-renderer/views', '../views/context')],
    },
    {
      name: 'the renderer importing src-main, by a dynamic import',
      filename: file('src-renderer/views/x.tsx'),
      code: "const m = await import('../../src-main/store/list-query');",
      errors: [folderError('src-renderer/views', 'src-main/store', '../../src-main/store/list-query')],
    },
    {
      name: 'a re-export counts as an import',
      filename: file('src-main/model/x.ts'),
      code: "export { ToolRegistry } from '../tools/registry';",
      errors: [folderError('src-main/model', 'src-main/tools', '../tools/registry')],
    },
    {
      name: 'faces reaching the core',
      filename: file('src-main/faces/acp/x.ts'),
      code: "import { Session } from '../../core/session';",
      errors: [folderError('src-main/faces', 'src-main/core', '../../core/session')],
    },
    {
      name: 'the core importing electron',
      filename: file('src-main/core/x.ts'),
      code: "import { app } from 'electron';",
      errors: [
        {
          message:
            'Layering rule (docs/ARCHITECTURE.md): src-main/core may not import the package "electron"; it may import any package but electron.',
        },
      ],
    },
    {
      name: 'the renderer importing a Node built-in',
      filename: file('src-renderer/store/x.ts'),
      code: "import { readFile } from 'node:fs/promises';\nimport os from 'os';",
      errors: [
        {
          message:
            'Layering rule (docs/ARCHITECTURE.md): src-renderer/store may not import the package "node:fs/promises"; it may import packages that are neither Node built-ins nor electron.',
        },
        { messageId: 'package' },
      ],
    },
    {
      name: 'the protocol importing a package other than zod',
      filename: file('src-preload/protocol/x.ts'),
      code: "import { v7 } from 'uuid';",
      errors: [{ messageId: 'package' }],
    },
    {
      name: 'a source file importing from outside the source roots',
      filename: file('src-main/core/x.ts'),
      code: "import { makeContext } from '../../test/support/tool-context';",
      errors: [{ messageId: 'outside' }],
    },
    {
      name: 'a folder without a row',
      filename: file('src-main/newfolder/x.ts'),
      code: "import { a } from './a';\nimport { b } from './b';",
      errors: [{ messageId: 'unlisted' }],
    },
  ],
});

describe('the layering table', () => {
  it('reports the rule and the allowed folders in its message', () => {
    // RuleTester checks messageIds; this checks the text people read.
    const message = layering.meta?.messages?.['folder'] ?? '';
    expect(message).toContain('Layering rule (docs/ARCHITECTURE.md)');
    expect(message).toContain('{{from}} may import: {{allowed}}');
  });

  it('has a row for every folder and top-level file under the source roots', () => {
    const units = new Set<string>();
    for (const root of ['src-main', 'src-preload', 'src-renderer']) {
      for (const entry of readdirSync(join(repo, root), { withFileTypes: true })) {
        if (!entry.isDirectory() && !/\.(ts|tsx)$/.test(entry.name)) continue;
        const unit = unitOf(`${root}/${entry.name}`);
        if (unit !== null) units.add(unit);
      }
    }
    const missing = [...units].filter((u) => layers[u] === undefined);
    expect(missing).toEqual([]);
  });

  it('only names folders that have rows', () => {
    for (const row of Object.values(layers)) {
      for (const target of row.may) expect(Object.keys(layers)).toContain(target);
    }
  });

  it('is the table docs/ARCHITECTURE.md states', () => {
    const doc = readFileSync(join(repo, 'docs/ARCHITECTURE.md'), 'utf8');
    expect(doc).toContain(layeringTable());
  });
});
