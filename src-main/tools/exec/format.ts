// The text that `exec_command` / `write_stdin` return to the model, and middle truncation of command
// output (Codex's unified exec format: Chunk ID / Wall time / Process … / Original token count / Output:).
import { randomBytes } from 'node:crypto';
import { BYTES_PER_TOKEN } from './constants';

export interface ExecOutputFields {
  /** 6 hex chars identifying this chunk of output; the line is left out when empty. */
  chunkId: string;
  wallTimeMs: number;
  /** Set once the process has exited; takes precedence over `sessionId`. */
  exitCode: number | null;
  /** Set while the process is still running and can be addressed with `write_stdin`. */
  sessionId: number | null;
  /** Token estimate of the whole output; set only when the body was truncated. */
  originalTokenCount: number | null;
  body: string;
}

export interface TruncatedText {
  text: string;
  truncated: boolean;
  /** Token estimate of the text before truncation (always set, whether or not it was truncated). */
  originalTokenCount: number;
}

/** Output retained in two pieces with `omittedBytes` dropped between them (see RetainedOutput). */
export interface RetainedParts {
  head: string;
  omittedBytes: number;
  tail: string;
}

export function formatExecOutput(fields: ExecOutputFields): string {
  const lines: string[] = [];
  if (fields.chunkId !== '') lines.push(`Chunk ID: ${fields.chunkId}`);
  lines.push(`Wall time: ${(fields.wallTimeMs / 1000).toFixed(4)} seconds`);
  if (fields.exitCode !== null) lines.push(`Process exited with code ${fields.exitCode}`);
  else if (fields.sessionId !== null) lines.push(`Process running with session ID ${fields.sessionId}`);
  if (fields.originalTokenCount !== null) lines.push(`Original token count: ${fields.originalTokenCount}`);
  lines.push('Output:');
  lines.push(fields.body);
  return lines.join('\n');
}

/** 6 random hex characters. */
export function newChunkId(): string {
  return randomBytes(3).toString('hex');
}

export function utf8ByteLength(text: string): number {
  return Buffer.byteLength(text, 'utf8');
}

/** Codex's token estimate: one token per 4 bytes of UTF-8, rounded up. */
export function approxTokenCount(text: string): number {
  return Math.ceil(utf8ByteLength(text) / BYTES_PER_TOKEN);
}

/** The longest prefix of `text` that is at most `maxBytes` of UTF-8 and ends on a character boundary. */
export function utf8Prefix(text: string, maxBytes: number): string {
  const buf = Buffer.from(text, 'utf8');
  if (buf.length <= maxBytes) return text;
  let cut = Math.max(0, maxBytes);
  while (cut > 0 && isContinuationByte(buf[cut])) cut--;
  return buf.subarray(0, cut).toString('utf8');
}

/** The longest suffix of `text` that is at most `maxBytes` of UTF-8 and starts on a character boundary. */
export function utf8Suffix(text: string, maxBytes: number): string {
  const buf = Buffer.from(text, 'utf8');
  if (buf.length <= maxBytes) return text;
  let start = buf.length - Math.max(0, maxBytes);
  while (start < buf.length && isContinuationByte(buf[start])) start++;
  return buf.subarray(start).toString('utf8');
}

function isContinuationByte(byte: number | undefined): boolean {
  return byte !== undefined && (byte & 0xc0) === 0x80;
}

/**
 * Keeps at most `maxTokens`×4 bytes of `text`: half from the head, half from the tail, cut on UTF-8
 * character boundaries, with a `…N tokens truncated…` line between them (N = removed bytes / 4, rounded
 * up). Text within the budget is returned unchanged.
 */
export function truncateMiddle(text: string, maxTokens: number): TruncatedText {
  const budget = Math.max(0, Math.floor(maxTokens)) * BYTES_PER_TOKEN;
  const totalBytes = utf8ByteLength(text);
  const originalTokenCount = Math.ceil(totalBytes / BYTES_PER_TOKEN);
  if (totalBytes <= budget) return { text, truncated: false, originalTokenCount };
  const headBudget = Math.floor(budget / 2);
  const head = utf8Prefix(text, headBudget);
  const tail = utf8Suffix(text, budget - headBudget);
  const removed = totalBytes - utf8ByteLength(head) - utf8ByteLength(tail);
  return { text: joinAroundMarker(head, removed, tail), truncated: true, originalTokenCount };
}

/**
 * Like `truncateMiddle`, for output whose middle was already dropped by the retention cap: the result is
 * always marked as truncated when `omittedBytes > 0`, and the token counts include the dropped bytes.
 */
export function truncateRetained(parts: RetainedParts, maxTokens: number): TruncatedText {
  if (parts.omittedBytes <= 0) return truncateMiddle(parts.head + parts.tail, maxTokens);
  const budget = Math.max(0, Math.floor(maxTokens)) * BYTES_PER_TOKEN;
  const headBudget = Math.floor(budget / 2);
  const head = utf8Prefix(parts.head, headBudget);
  const tail = utf8Suffix(parts.tail, budget - headBudget);
  const totalBytes = utf8ByteLength(parts.head) + parts.omittedBytes + utf8ByteLength(parts.tail);
  const removed = totalBytes - utf8ByteLength(head) - utf8ByteLength(tail);
  return {
    text: joinAroundMarker(head, removed, tail),
    truncated: true,
    originalTokenCount: Math.ceil(totalBytes / BYTES_PER_TOKEN),
  };
}

/** Puts the marker on a line of its own without adding blank lines where the cut fell on a newline. */
function joinAroundMarker(head: string, removedBytes: number, tail: string): string {
  const marker = `…${Math.ceil(removedBytes / BYTES_PER_TOKEN)} tokens truncated…`;
  const before = head === '' || head.endsWith('\n') ? '' : '\n';
  const after = tail === '' || tail.startsWith('\n') ? '' : '\n';
  return `${head}${before}${marker}${after}${tail}`;
}
