// The reviewer's instructions, the request it gets, and its answer parsed into findings.
import { isAbsolute, relative } from 'node:path';
import { z } from 'zod';
import type { ReviewFinding, ReviewOutput } from '../../src-preload/protocol';
import type { ReviewMaterial } from './review-target';

export const REVIEW_INSTRUCTIONS = `You review code changes as a careful senior engineer. Report only problems a competent author would want fixed before merging: bugs, wrong behaviour, security holes, data loss, races, broken error handling, missing or wrong tests for changed behaviour, and clear violations of the project's own guidance. Do not report style preferences, formatting, or issues that existed before the change unless the change makes them worse.

For every finding give:
- title: one line, at most 80 characters, starting with its priority tag ("[P0]" must fix now, breaks things or loses data; "[P1]" should fix before merging; "[P2]" worth fixing; "[P3]" minor).
- body: why it is a problem and how to fix it, in a short paragraph. Quote the code you mean.
- priority: 0 to 3, matching the tag.
- confidence_score: 0 to 1, how sure you are.
- code_location: absolute_file_path and line_range {start, end} in the file's new version, as narrow as possible (a few lines), inside the changed lines when you can.

Then judge the change as a whole: overall_correctness is "patch is correct" (no finding that blocks it) or "patch is incorrect", overall_explanation says why in one to three sentences, overall_confidence_score is 0 to 1.

Answer with the JSON object only. If there is nothing worth reporting, give an empty findings list.`;

/** The answer's JSON Schema (strict: every property required). */
export const REVIEW_OUTPUT_SCHEMA: Record<string, unknown> = {
  type: 'object',
  additionalProperties: false,
  required: ['findings', 'overall_correctness', 'overall_explanation', 'overall_confidence_score'],
  properties: {
    findings: {
      type: 'array',
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['title', 'body', 'confidence_score', 'priority', 'code_location'],
        properties: {
          title: { type: 'string' },
          body: { type: 'string' },
          confidence_score: { type: 'number' },
          priority: { type: 'integer' },
          code_location: {
            type: 'object',
            additionalProperties: false,
            required: ['absolute_file_path', 'line_range'],
            properties: {
              absolute_file_path: { type: 'string' },
              line_range: {
                type: 'object',
                additionalProperties: false,
                required: ['start', 'end'],
                properties: { start: { type: 'integer' }, end: { type: 'integer' } },
              },
            },
          },
        },
      },
    },
    overall_correctness: { type: 'string' },
    overall_explanation: { type: 'string' },
    overall_confidence_score: { type: 'number' },
  },
};

/** The user message the reviewer gets: what to review, the project's guidance, and the diff. */
export function reviewPrompt(material: ReviewMaterial, cwd: string, projectDocs: string | null): string {
  const parts: string[] = [];
  parts.push(
    `Review ${material.description}. The repository is at ${material.root ?? cwd}; give absolute file paths under it.`,
  );
  if (material.instructions !== null) parts.push(`What to review:\n${material.instructions}`);
  if (projectDocs !== null)
    parts.push(
      `The project's guidance (AGENTS.md); apply what it says about reviews and code:\n<project_guidance>\n${projectDocs}\n</project_guidance>`,
    );
  if (material.diff !== '') {
    parts.push(
      `The diff${material.truncated ? ' (cut: it was too long; review what is here and say so)' : ''}:\n\`\`\`diff\n${material.diff}\n\`\`\``,
    );
  }
  return parts.join('\n\n');
}

const Raw = z.object({
  findings: z
    .array(
      z.object({
        title: z.string(),
        body: z.string().default(''),
        confidence_score: z.number().catch(0.5).default(0.5),
        priority: z.number().catch(2).default(2),
        code_location: z
          .object({
            absolute_file_path: z.string(),
            line_range: z.object({ start: z.number(), end: z.number() }),
          })
          .nullish(),
      }),
    )
    .default([]),
  overall_correctness: z.string().default(''),
  overall_explanation: z.string().default(''),
  overall_confidence_score: z.number().nullish(),
});

/** The JSON object in the answer (bare, or in a ```json fence), or null. */
function jsonOf(text: string): unknown {
  const candidates = [text.trim()];
  const fence = /```(?:json)?\s*\n([\s\S]*?)```/.exec(text);
  if (fence?.[1] !== undefined) candidates.push(fence[1].trim());
  const first = text.indexOf('{');
  const last = text.lastIndexOf('}');
  if (first >= 0 && last > first) candidates.push(text.slice(first, last + 1));
  for (const c of candidates) {
    try {
      return JSON.parse(c);
    } catch {
      /* the next candidate */
    }
  }
  return null;
}

const clamp = (n: number, lo: number, hi: number): number => Math.min(hi, Math.max(lo, n));

/** The findings in the reviewer's answer, or null when it is not the JSON asked for. */
export function parseReview(answer: string, root: string | null): ReviewOutput | null {
  const parsed = Raw.safeParse(jsonOf(answer));
  if (!parsed.success) return null;
  const findings: ReviewFinding[] = parsed.data.findings.map((f) => {
    const tag = /^\s*\[P([0-3])\]/.exec(f.title);
    const priority = clamp(Math.round(tag ? Number(tag[1]) : f.priority), 0, 3);
    const file = f.code_location?.absolute_file_path ?? '';
    const path =
      root !== null && isAbsolute(file) && !relative(root, file).startsWith('..') ? relative(root, file) : file;
    const start = Math.max(1, Math.round(f.code_location?.line_range.start ?? 1));
    const end = Math.max(start, Math.round(f.code_location?.line_range.end ?? start));
    return {
      title: f.title.trim(),
      body: f.body.trim(),
      priority,
      confidence: clamp(f.confidence_score, 0, 1),
      path,
      lineStart: start,
      lineEnd: end,
    };
  });
  findings.sort((a, b) => a.priority - b.priority || b.confidence - a.confidence);
  const overall = parsed.data.overall_confidence_score;
  return {
    findings,
    overallCorrectness: parsed.data.overall_correctness,
    overallExplanation: parsed.data.overall_explanation,
    overallConfidence: overall === null || overall === undefined ? null : clamp(overall, 0, 1),
  };
}

/** The plain-text form of a review (`exitedReviewMode.review`, and what `weft review` prints). */
export function renderReview(output: ReviewOutput): string {
  const lines: string[] = [];
  if (output.findings.length === 0) lines.push('No findings.');
  for (const f of output.findings) {
    const title = /^\s*\[P[0-3]\]/.test(f.title) ? f.title : `[P${f.priority}] ${f.title}`;
    const where = f.path === '' ? '' : ` — ${f.path}:${f.lineStart}${f.lineEnd !== f.lineStart ? `-${f.lineEnd}` : ''}`;
    lines.push(`- ${title}${where} (confidence ${f.confidence.toFixed(2)})`);
    if (f.body !== '') lines.push(...f.body.split('\n').map((l) => `  ${l}`));
  }
  if (output.overallCorrectness !== '' || output.overallExplanation !== '') {
    lines.push(
      '',
      `${output.overallCorrectness || 'Overall'}${output.overallExplanation ? `: ${output.overallExplanation}` : ''}`,
    );
  }
  return lines.join('\n');
}
