// `weft/type-errors`: TypeScript's own errors in each file, read from the program the type-aware rules
// already built for it (eslint.config.js's `project`: the first of tsconfig.node.json,
// tsconfig.renderer.json and tsconfig.json that holds the file). Asking that program for the file's
// syntactic and semantic diagnostics is the check `tsc -p` of that tsconfig makes, without building and
// checking a second program of every file (`npm test` once ran the tsc passes too: 67 s of CPU on top of
// the lint). Errors that belong to no file (options, global types) are reported once per program, on the
// first of its files linted.
import ts from 'typescript';

/** Programs whose file-less errors were reported already. */
const globalsReported = new WeakSet();

/** The message of a diagnostic, with its chain of reasons, as tsc prints it. */
function text(diagnostic) {
  return `TS${diagnostic.code}: ${ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n')}`;
}

/** @type {import('eslint').Rule.RuleModule} */
export const typeErrors = {
  meta: {
    type: 'problem',
    docs: {
      description: "TypeScript's errors of the file in its program (what `tsc -p` of that tsconfig reports)",
    },
    schema: [],
  },
  create(context) {
    const services = context.sourceCode.parserServices;
    const program = services?.program;
    if (program === undefined || program === null) return {};
    const sourceFile = program.getSourceFile(context.physicalFilename);
    if (sourceFile === undefined) return {};
    return {
      Program(node) {
        if (!globalsReported.has(program)) {
          globalsReported.add(program);
          for (const diagnostic of [
            ...program.getConfigFileParsingDiagnostics(),
            ...program.getOptionsDiagnostics(),
            ...program.getGlobalDiagnostics(),
          ])
            if (diagnostic.category === ts.DiagnosticCategory.Error)
              context.report({ node, message: text(diagnostic) });
        }
        for (const diagnostic of [
          ...program.getSyntacticDiagnostics(sourceFile),
          ...program.getSemanticDiagnostics(sourceFile),
        ]) {
          if (diagnostic.category !== ts.DiagnosticCategory.Error) continue;
          const start = diagnostic.start ?? 0;
          const end = start + (diagnostic.length ?? 0);
          const from = sourceFile.getLineAndCharacterOfPosition(start);
          const to = sourceFile.getLineAndCharacterOfPosition(end);
          context.report({
            loc: {
              start: { line: from.line + 1, column: from.character },
              end: { line: to.line + 1, column: to.character },
            },
            message: text(diagnostic),
          });
        }
      },
    };
  },
};
