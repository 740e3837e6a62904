// `weft/layering`: every import of a file under src-main/, src-preload/ or src-renderer/ must be allowed by
// the layering table (lint/layers.js): a folder imports only the folders its row lists, and only the
// packages its row allows. Relative imports are resolved against the importing file, so `../../x` cannot
// slip past the rule; type-only imports count (they are dependencies of the design all the same).
import { builtinModules } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { layers as defaultLayers } from './layers.js';

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const ROOTS = new Set(['src-main', 'src-preload', 'src-renderer']);
const BUILTINS = new Set(builtinModules);

/**
 * The unit of a repository-relative path: `src-main/core/x.ts` → `src-main/core`, `src-main/cli.ts` →
 * `src-main/cli`. Null outside the three source roots.
 */
export function unitOf(relPath) {
  const parts = relPath.split(/[\\/]/);
  const [root, second] = parts;
  if (root === undefined || !ROOTS.has(root) || second === undefined || second === '') return null;
  return `${root}/${second.replace(/(\.d)?\.[cm]?[jt]sx?$/, '')}`;
}

function packageName(specifier) {
  if (specifier.startsWith('node:')) return specifier;
  const parts = specifier.split('/');
  return specifier.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0];
}

function packageAllowed(policy, name) {
  const builtin = name.startsWith('node:') || BUILTINS.has(name);
  if (Array.isArray(policy)) return policy.includes(name);
  if (policy === 'any') return true;
  if (name === 'electron') return false;
  if (policy === 'browser') return !builtin;
  return true;
}

function describePackages(policy) {
  if (Array.isArray(policy)) return policy.length === 0 ? 'no packages' : `only the packages ${policy.join(', ')}`;
  if (policy === 'any') return 'any package';
  if (policy === 'browser') return 'packages that are neither Node built-ins nor electron';
  return 'any package but electron';
}

function describeFolders(may) {
  return may.length === 0 ? 'no other folder' : may.join(', ');
}

/** @type {import('eslint').Rule.RuleModule} */
export const layering = {
  meta: {
    type: 'problem',
    docs: {
      description: 'Each source folder imports only the folders and packages its row of the layering table allows.',
    },
    schema: [
      {
        type: 'object',
        properties: { root: { type: 'string' }, layers: { type: 'object' } },
        additionalProperties: false,
      },
    ],
    messages: {
      folder:
        'Layering rule (docs/ARCHITECTURE.md): {{from}} may not import {{to}} ("{{specifier}}"). {{from}} may import: {{allowed}}.',
      outside:
        'Layering rule (docs/ARCHITECTURE.md): {{from}} may not import "{{specifier}}", which is outside src-main, src-preload and src-renderer. {{from}} may import: {{allowed}}.',
      package:
        'Layering rule (docs/ARCHITECTURE.md): {{from}} may not import the package "{{name}}"; it may import {{packages}}.',
      unlisted:
        'Layering rule (docs/ARCHITECTURE.md): the folder {{from}} has no row in the layering table (lint/layers.js); add one, and to docs/ARCHITECTURE.md.',
    },
  },
  create(context) {
    const options = context.options[0] ?? {};
    const root = options.root ?? REPO;
    const layers = options.layers ?? defaultLayers;
    const filename = context.filename;
    const from = unitOf(path.relative(root, filename));
    if (from === null) return {};
    const row = layers[from];
    let reportedUnlisted = false;

    function check(node, specifier) {
      if (typeof specifier !== 'string') return;
      if (row === undefined) {
        if (!reportedUnlisted) context.report({ node, messageId: 'unlisted', data: { from } });
        reportedUnlisted = true;
        return;
      }
      if (specifier.startsWith('.') || path.isAbsolute(specifier)) {
        const target = path.relative(root, path.resolve(path.dirname(filename), specifier));
        const to = unitOf(target);
        if (to === from) return;
        const data = { from, specifier, allowed: describeFolders(row.may) };
        if (to === null) context.report({ node, messageId: 'outside', data });
        else if (!row.may.includes(to)) context.report({ node, messageId: 'folder', data: { ...data, to } });
        return;
      }
      const name = packageName(specifier);
      if (!packageAllowed(row.packages, name)) {
        context.report({ node, messageId: 'package', data: { from, name, packages: describePackages(row.packages) } });
      }
    }

    const fromSource = (node) => {
      if (node.source) check(node.source, node.source.value);
    };
    return {
      ImportDeclaration: fromSource,
      ExportNamedDeclaration: fromSource,
      ExportAllDeclaration: fromSource,
      ImportExpression(node) {
        if (node.source.type === 'Literal') check(node.source, node.source.value);
      },
      TSImportType(node) {
        const arg = node.argument;
        const literal = arg?.type === 'TSLiteralType' ? arg.literal : arg;
        if (literal?.type === 'Literal') check(literal, literal.value);
      },
      TSExternalModuleReference(node) {
        if (node.expression.type === 'Literal') check(node.expression, node.expression.value);
      },
    };
  },
};

export default { meta: { name: 'weft' }, rules: { layering } };
