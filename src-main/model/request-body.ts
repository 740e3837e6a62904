// The bytes of a model request. The body is the thread's whole history on every request, and one item in it
// may be a 4 MB patch: JSON.stringify of the whole body, then the HTTP client's conversion of that string,
// held the event loop for 30–45 ms in one stretch (every other thread and window waited). Here each element
// of the long array is serialized on its own, pausing between them when the slice is used up, and the
// result is bytes, which the SDK and fetch send as they are.
import { Slicer, type Pacer } from '../util/slicer';

/** Headers that go with the bytes (the SDK sets no content type for a body it did not encode). */
export const JSON_BODY_HEADERS = { 'content-type': 'application/json' } as const;

/**
 * `Buffer.from(JSON.stringify(body))`, byte for byte, with the elements of `body[key]` (an array) serialized
 * one at a time and the event loop given back between them when `pacer` says so.
 */
export async function encodeRequestBody(
  body: Readonly<Record<string, unknown>>,
  key: string,
  pacer: Pacer = new Slicer(),
): Promise<Buffer> {
  const parts: Buffer[] = [];
  let first = true;
  const open = (name: string): void => {
    parts.push(Buffer.from(`${first ? '{' : ','}${JSON.stringify(name)}:`, 'utf8'));
    first = false;
  };
  for (const [name, value] of Object.entries(body)) {
    if (name === key && Array.isArray(value)) {
      open(name);
      const items: readonly unknown[] = value;
      parts.push(Buffer.from('[', 'utf8'));
      for (const [index, item] of items.entries()) {
        // An element JSON cannot say (undefined, a function) is `null` in an array, as JSON.stringify has it.
        const text = JSON.stringify(item) ?? 'null';
        parts.push(Buffer.from(index === 0 ? text : `,${text}`, 'utf8'));
        await pacer.pace();
      }
      parts.push(Buffer.from(']', 'utf8'));
      continue;
    }
    const text = JSON.stringify(value);
    // A member whose value JSON cannot say is left out, as JSON.stringify leaves it out.
    if (text === undefined) continue;
    open(name);
    parts.push(Buffer.from(text, 'utf8'));
  }
  parts.push(Buffer.from(first ? '{}' : '}', 'utf8'));
  return Buffer.concat(parts);
}
