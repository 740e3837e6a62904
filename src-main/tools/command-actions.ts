import type { CommandAction } from '../../src-preload/protocol';

/**
 * A best-effort reading of what a simple command does, so clients can show "Read foo.ts" instead
 * of the raw command. Anything compound or unfamiliar is `unknown`.
 */
export function parseCommandActions(command: string): CommandAction[] {
  if (/[|;&<>`$()]/.test(command)) return [{ type: 'unknown', command }];
  const words = splitWords(command);
  const [program, ...args] = words;
  if (!program) return [{ type: 'unknown', command }];
  const operands = args.filter((a) => !a.startsWith('-'));
  const base = program.split('/').pop() ?? program;
  switch (base) {
    case 'cat':
    case 'head':
    case 'tail':
    case 'nl':
    case 'less':
    case 'more': {
      const path = operands.at(-1);
      return path
        ? [{ type: 'read', command, name: path.split('/').pop() ?? path, path }]
        : [{ type: 'unknown', command }];
    }
    case 'sed': {
      const path = operands.length >= 2 ? operands.at(-1) : undefined;
      return args.includes('-n') && path
        ? [{ type: 'read', command, name: path.split('/').pop() ?? path, path }]
        : [{ type: 'unknown', command }];
    }
    case 'ls':
    case 'tree':
      return [{ type: 'listFiles', command, path: operands[0] ?? null }];
    case 'find':
      return [{ type: 'listFiles', command, path: operands[0] ?? null }];
    case 'rg':
    case 'grep':
    case 'ag': {
      if (args.includes('--files')) return [{ type: 'listFiles', command, path: operands[0] ?? null }];
      return [{ type: 'search', command, query: operands[0] ?? null, path: operands[1] ?? null }];
    }
    default:
      return [{ type: 'unknown', command }];
  }
}

/** Whitespace split honouring single and double quotes (no expansion: callers reject `$`). */
function splitWords(command: string): string[] {
  const words: string[] = [];
  const re = /'([^']*)'|"([^"]*)"|(\S+)/g;
  for (let m = re.exec(command); m; m = re.exec(command)) words.push(m[1] ?? m[2] ?? m[3] ?? '');
  return words;
}
