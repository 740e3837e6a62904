// Turning zod failures into one line a person can act on (used for -32602 messages and bad rollout lines).
import type { z } from 'zod';

type Issue = z.core.$ZodIssue;
type PathSegment = PropertyKey;

const identifier = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

function formatPath(root: string, path: readonly PathSegment[]): string {
  let out = root;
  for (const segment of path) {
    if (typeof segment === 'number') out += `[${segment}]`;
    else if (typeof segment === 'string' && identifier.test(segment)) out += out === '' ? segment : `.${segment}`;
    else out += `[${JSON.stringify(String(segment))}]`;
  }
  return out;
}

function quoteAll(values: readonly unknown[]): string {
  return values.map((value) => (typeof value === 'string' ? JSON.stringify(value) : String(value))).join(', ');
}

/** For a failed union, the branch that got furthest: the one whose failing path is deepest (first wins ties). */
function closestBranch(branches: readonly (readonly Issue[])[]): readonly Issue[] | undefined {
  let best: readonly Issue[] | undefined;
  let bestDepth = -1;
  for (const branch of branches) {
    const first = branch[0];
    if (first === undefined) continue;
    const depth = deepestPath(first);
    if (depth > bestDepth) {
      best = branch;
      bestDepth = depth;
    }
  }
  return best;
}

function deepestPath(issue: Issue): number {
  if (issue.code === 'invalid_union') {
    const branch = closestBranch(issue.errors);
    const inner = branch?.[0];
    if (inner !== undefined) return issue.path.length + deepestPath(inner);
  }
  return issue.path.length;
}

/** The issue to report and its full path, descending into the closest branch of a failed union. */
function innermost(issue: Issue, prefix: readonly PathSegment[]): { issue: Issue; path: PathSegment[] } {
  const path = [...prefix, ...issue.path];
  if (issue.code === 'invalid_union') {
    const inner = closestBranch(issue.errors)?.[0];
    if (inner !== undefined) return innermost(inner, path);
  }
  return { issue, path };
}

function problem(issue: Issue): string {
  switch (issue.code) {
    case 'invalid_value':
      return issue.values.length === 1
        ? `expected ${quoteAll(issue.values)}`
        : `expected one of ${quoteAll(issue.values)}`;
    case 'unrecognized_keys':
      return `unexpected field${issue.keys.length === 1 ? '' : 's'} ${quoteAll(issue.keys)}`;
    case 'invalid_union':
      if ('options' in issue && issue.options !== undefined && issue.options.length > 0) {
        return `expected one of ${quoteAll(issue.options)}`;
      }
      return 'matches none of the allowed shapes';
    default:
      return issue.message.replace(/^(?:Invalid (?:input|option)|Too (?:small|big)): /, '');
  }
}

/**
 * One line naming the first failing field and what is wrong with it, e.g.
 * `params.threadId: expected string, received undefined`. `root` names the value that was parsed (default
 * "params"); pass '' to start at its fields. Further problems are counted, not listed.
 */
export function describeZodError(error: z.ZodError, root = 'params'): string {
  const first = error.issues[0];
  if (first === undefined) return root === '' ? 'invalid value' : `${root}: invalid value`;
  const { issue, path } = innermost(first, []);
  const where = formatPath(root, path);
  const more = error.issues.length - 1;
  const suffix = more > 0 ? ` (and ${more} more problem${more === 1 ? '' : 's'})` : '';
  return `${where === '' ? '' : `${where}: `}${problem(issue)}${suffix}`;
}
