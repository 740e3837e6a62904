/**
 * The Lark grammar Weft gives models for the freeform `apply_patch` tool: the patch format of
 * apply-patch/parse.ts, written out so constrained decoding only produces patches the parser accepts.
 */
export const APPLY_PATCH_LARK_GRAMMAR = String.raw`start: begin_patch hunk+ end_patch
begin_patch: "*** Begin Patch" LF
end_patch: "*** End Patch" LF?

hunk: add_hunk | delete_hunk | update_hunk
add_hunk: "*** Add File: " filename LF add_line+
delete_hunk: "*** Delete File: " filename LF
update_hunk: "*** Update File: " filename LF change_move? change?

filename: /(.+)/
add_line: "+" /(.*)/ LF -> line

change_move: "*** Move to: " filename LF
change: (change_context | change_line)+ eof_line?
change_context: ("@@" | "@@ " /(.+)/) LF
change_line: ("+" | "-" | " ") /(.*)/ LF
eof_line: "*** End of File" LF

%import common.LF
`;

export const APPLY_PATCH_FUNCTION_DESCRIPTION = `Use the \`apply_patch\` tool to edit files. Put the whole patch in \`input\`.
The patch format is a stripped-down, file-oriented diff:

*** Begin Patch
[ one or more file sections ]
*** End Patch

Each file section starts with one of three headers:
*** Add File: <path> - create a new file; every following line starts with + and is the file's content.
*** Delete File: <path> - remove an existing file; nothing follows.
*** Update File: <path> - patch an existing file in place (optionally followed by "*** Move to: <new path>" to rename it).

An update section holds one or more chunks. A chunk starts with "@@" (optionally followed by a line such as a class or function header that locates it), then lines starting with " " (unchanged context), "-" (removed) or "+" (added). Show 3 lines of context above and below each change; add more "@@ <header>" lines when 3 lines are not unique. End a chunk with "*** End of File" if it touches the end of the file.

Rules: paths are relative to the working directory (never absolute); every added line starts with +, even in new files; do not re-indent lines you are not changing.

Example:
*** Begin Patch
*** Add File: hello.txt
+Hello world
*** Update File: src/app.py
*** Move to: src/main.py
@@ def greet():
-print("Hi")
+print("Hello, world!")
*** Delete File: obsolete.txt
*** End Patch`;
