// `weft/type-errors`: TypeScript's own errors in each file, as `tsc -p tsconfig.json` reports them, read from
// the program the type-aware rules already built. That program is tsconfig.json's (eslint.config.js's
// \`project\`; every TypeScript file ESLint lints is in it): asking it for the
// file's syntactic and semantic diagnostics is the same check as `tsc -p tsconfig.json`, without building
// and checking a second program of every file (`npm test` once ran both: 37 s of CPU on top of the lint).
// Errors that belong to no file (options, global types) are reported once, on the first file linted.
import ts from 'typescript';

let globalsReported = false;

/** The message of a diagnostic, with its chain of reasons, as tsc prints it. */
function text(diagnostic) {
  return `TS${diagnostic.code}: ${ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n')}`;
}

/** @type {import('eslint').Rule.RuleModule} */
export const typeErrors = {
  meta: {
    type: 'problem',
    docs: {
      description: "TypeScript's errors of the file in tsconfig.json's program (what `tsc -p tsconfig.json` reports)",
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
        if (!globalsReported) {
          globalsReported = true;
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
