import { describe, expect, it } from 'vitest';
import { extractApplyPatchInvocation } from '../../../src-main/tools/apply-patch/intercept';

const body = '*** Begin Patch\n*** Add File: a.txt\n+hi\n*** End Patch';

describe('extractApplyPatchInvocation', () => {
  it.each([
    [`apply_patch <<'EOF'\n${body}\nEOF`],
    [`apply_patch <<'EOF'\n${body}\nEOF\n`],
    [`  applypatch <<EOF\n${body}\nEOF  \n\n`],
    [`apply_patch <<"EOF"\n${body}\nEOF`],
    [`apply_patch << 'PATCH'\n${body}\nPATCH`],
    [`apply_patch <<-EOF\n\t${body.replaceAll('\n', '\n\t')}\n\tEOF`],
  ])('recognises %j', (cmd) => {
    expect(extractApplyPatchInvocation(cmd)).toEqual({ patch: body, workdir: null });
  });

  it.each([
    ['cd src && apply_patch', 'src'],
    ["cd 'my dir' && apply_patch", 'my dir'],
    ['cd "a \\"b\\"" &&apply_patch', 'a "b"'],
    ['cd my\\ dir&& applypatch', 'my dir'],
    ['cd /abs/path && apply_patch', '/abs/path'],
  ])('takes the directory from %j', (prefix, workdir) => {
    expect(extractApplyPatchInvocation(`${prefix} <<'EOF'\n${body}\nEOF\n`)).toEqual({ patch: body, workdir });
  });

  it('keeps a body line that only looks like the delimiter', () => {
    expect(extractApplyPatchInvocation(`apply_patch <<'EOF'\n+EOF\n EOF\nEOF`)).toEqual({
      patch: '+EOF\n EOF',
      workdir: null,
    });
  });

  it.each([
    ['another command first', `echo hi && apply_patch <<'EOF'\n${body}\nEOF`],
    ['a command after', `apply_patch <<'EOF'\n${body}\nEOF\necho done`],
    ['a missing closing delimiter', `apply_patch <<'EOF'\n${body}\n`],
    ['a different closing word', `apply_patch <<'EOF'\n${body}\nEND`],
    ['text after the operator', `apply_patch <<'EOF' && ls\n${body}\nEOF`],
    ['a semicolon instead of &&', `cd src; apply_patch <<'EOF'\n${body}\nEOF`],
    ['a patch argument instead of a heredoc', `apply_patch '${body}'`],
    ['another command name', `apply_patches <<'EOF'\n${body}\nEOF`],
    ['a plain command', 'ls -la'],
  ])('returns null for %s', (_name, cmd) => {
    expect(extractApplyPatchInvocation(cmd)).toBeNull();
  });
});
