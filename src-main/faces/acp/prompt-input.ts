/**
 * What an ACP client sends as a prompt, as Weft user input: text as text, images as data URLs,
 * embedded resources (the editor's files and selections) as text wrapped in a tag naming their URI,
 * and links to resources as a line naming them (the agent can open them itself).
 */
import type { ContentBlock } from '@agentclientprotocol/sdk';
import type { UserInput } from '../../../src-preload/protocol';

export function promptToInput(blocks: readonly ContentBlock[]): UserInput[] {
  const input: UserInput[] = [];
  for (const block of blocks) {
    switch (block.type) {
      case 'text':
        input.push({ type: 'text', text: block.text });
        break;
      case 'image':
        input.push({
          type: 'image',
          url: block.uri?.startsWith('http') ? block.uri : `data:${block.mimeType};base64,${block.data}`,
        });
        break;
      case 'resource': {
        const resource = block.resource;
        if ('text' in resource)
          input.push({ type: 'text', text: `<context ref="${resource.uri}">\n${resource.text}\n</context>` });
        else
          input.push({
            type: 'text',
            text: `[binary resource ${resource.uri}${resource.mimeType ? ` (${resource.mimeType})` : ''} not included]`,
          });
        break;
      }
      case 'resource_link':
        input.push({ type: 'text', text: `[@${block.name}](${block.uri})` });
        break;
      case 'audio':
        input.push({ type: 'text', text: '[an audio clip was attached; Weft cannot listen to audio]' });
        break;
    }
  }
  return input;
}
