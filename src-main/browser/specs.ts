// The `browser` tools' names and JSON schemas, as the model is given them (docs/ARCHITECTURE.md lists them).
import type { BrowserAction } from '../../src-preload/protocol';
import type { FunctionToolSpec } from '../model/types';

const TARGET = {
  role: {
    type: 'string',
    description: "The element's accessible role, as `read` shows it (button, link, textbox, checkbox, heading…).",
  },
  name: { type: 'string', description: "The element's accessible name (its label or text), with `role`." },
  selector: { type: 'string', description: 'A CSS selector, when role and name cannot tell the element.' },
} as const;

function spec(
  name: BrowserAction,
  description: string,
  properties: Record<string, unknown>,
  required: string[] = [],
): FunctionToolSpec {
  return {
    type: 'function',
    name,
    description,
    strict: false,
    parameters: {
      type: 'object',
      properties,
      ...(required.length === 0 ? {} : { required }),
      additionalProperties: false,
    },
  };
}

export const BROWSER_SPECS: Record<BrowserAction, FunctionToolSpec> = {
  open: spec(
    'open',
    'Open a URL in the browser and wait for it to load. Loopback addresses (localhost, 127.0.0.1, [::1]) and file: URLs inside the workspace are allowed; other hosts only when the network is on for this thread, and after the user approves each origin.',
    { url: { type: 'string', description: 'An absolute URL, e.g. http://localhost:5173/' } },
    ['url'],
  ),
  screenshot: spec(
    'screenshot',
    'Take a screenshot of the page (the viewport, the full page, or one element); the image is attached to the next request. Tall pages are cut at 4000 px.',
    {
      full_page: { type: 'boolean', description: 'Capture the whole scrollable page, not only the viewport.' },
      selector: { type: 'string', description: 'A CSS selector of one element to capture.' },
    },
  ),
  click: spec(
    'click',
    'Click one element, addressed by accessible role and name (preferred), a CSS selector, or its visible text.',
    { ...TARGET, text: { type: 'string', description: 'The visible text of the element to click.' } },
  ),
  type: spec(
    'type',
    'Replace the value of a text field (addressed by role and name or selector; the focused element when neither is given) with `text`, optionally pressing Enter.',
    {
      ...TARGET,
      text: { type: 'string', description: 'The text the field should hold.' },
      submit: { type: 'boolean', description: 'Press Enter afterwards (submits most forms).' },
    },
    ['text'],
  ),
  read: spec(
    'read',
    "Read the page: without `selector`, its accessibility snapshot (roles, names, text, as click and type address them); with it, that element's visible text.",
    { selector: { type: 'string', description: 'A CSS selector of the element whose visible text to read.' } },
  ),
  console: spec(
    'console',
    "The page's console messages, uncaught errors and failed or refused requests since the last call.",
    {},
  ),
  evaluate: spec(
    'evaluate',
    'Evaluate a JavaScript expression in the page and return its JSON value (asks the user first, as a command would).',
    { expression: { type: 'string', description: 'A JavaScript expression; a promise is awaited.' } },
    ['expression'],
  ),
  close: spec('close', 'Close the browser and delete its profile; the next `open` starts a fresh one.', {}),
};
