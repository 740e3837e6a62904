import type * as Crypto from 'node:crypto';

/**
 * node:crypto, loaded with the first id: loading it compiles about twenty of Node's internal modules
 * (10 ms or so), which a start-up that makes no id (an app server answering its first lists) need not pay.
 */
const crypto = (): typeof Crypto => process.getBuiltinModule('node:crypto');

/**
 * A UUID version 7 (RFC 9562): 48-bit Unix-millisecond timestamp, then random bits. Ids sort by
 * creation time, which the thread store relies on for stable ordering.
 */
export function uuidv7(nowMs: number = Date.now()): string {
  const bytes = crypto().randomBytes(16);
  const ts = BigInt(nowMs);
  for (let i = 0; i < 6; i++) bytes[i] = Number((ts >> BigInt(8 * (5 - i))) & 0xffn);
  bytes[6] = ((bytes[6] ?? 0) & 0x0f) | 0x70;
  bytes[8] = ((bytes[8] ?? 0) & 0x3f) | 0x80;
  const hex = bytes.toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/** Ids for thread items and turns: unique, opaque to clients. */
export function newItemId(): string {
  return crypto().randomUUID();
}
