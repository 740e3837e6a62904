import {
  isKnownResponseItem,
  type AskForApproval,
  type ContentItem,
  type ResponseItem,
  type SandboxPolicy,
} from '../../src-preload/protocol';
import { writableRootsFor } from '../safety/sandbox/writable-roots';
import { discoverProjectDocs, renderProjectDocsMessage } from './agents-md';
import { currentEnvironment, renderEnvironmentContext } from './environment-context';
import { permissionsInstructions } from './permissions';
import { discoverSkills, renderSkillsSection } from './skills';

/** What the model was last told about its situation; later turns send only what changed. */
export interface ContextReference {
  cwd: string;
  approvalPolicy: AskForApproval;
  /** JSON of the sandbox policy. */
  sandbox: string;
}

export interface ContextSettings {
  cwd: string;
  approvalPolicy: AskForApproval;
  sandboxPolicy: SandboxPolicy;
}

export interface ContextSources {
  weftHome: string | null;
  developerInstructions: string | null;
  projectDocMaxBytes: number;
  projectDocFallbackFilenames: readonly string[];
  projectRootMarkers: readonly string[];
  env: NodeJS.ProcessEnv;
  now: Date;
}

export function contextReference(s: ContextSettings): ContextReference {
  return { cwd: s.cwd, approvalPolicy: s.approvalPolicy, sandbox: JSON.stringify(s.sandboxPolicy) };
}

function networkOn(p: SandboxPolicy): boolean {
  return p.type === 'dangerFullAccess' || p.networkAccess === true;
}

function permissionsText(s: ContextSettings, env: NodeJS.ProcessEnv): string {
  const roots =
    s.sandboxPolicy.type === 'workspaceWrite' ? writableRootsFor(s.sandboxPolicy, s.cwd, env).map((r) => r.root) : [];
  return permissionsInstructions({
    sandboxPolicy: s.sandboxPolicy,
    approvalPolicy: s.approvalPolicy,
    writableRoots: roots,
    networkAccess: networkOn(s.sandboxPolicy),
  });
}

/**
 * The context items for the next turn, as Codex sends them: on the first turn (no reference) a
 * developer message (permissions, developer instructions, skills) and a user message (AGENTS.md,
 * `<environment_context>`); on later turns only what changed since `reference`.
 */
export async function contextItems(
  reference: ContextReference | null,
  s: ContextSettings,
  src: ContextSources,
): Promise<{ items: ResponseItem[]; warnings: string[] }> {
  const warnings: string[] = [];
  const items: ResponseItem[] = [];
  const policyChanged =
    reference === null ||
    reference.approvalPolicy !== s.approvalPolicy ||
    reference.sandbox !== JSON.stringify(s.sandboxPolicy);
  const cwdChanged = reference === null || reference.cwd !== s.cwd;

  const developer: ContentItem[] = [];
  if (policyChanged) developer.push({ type: 'input_text', text: permissionsText(s, src.env) });
  if (reference === null) {
    if (src.developerInstructions?.trim()) developer.push({ type: 'input_text', text: src.developerInstructions });
    if (src.weftHome !== null) {
      const skills = await discoverSkills({
        cwd: s.cwd,
        weftHome: src.weftHome,
        projectRootMarkers: src.projectRootMarkers,
      });
      warnings.push(...skills.warnings);
      const section = renderSkillsSection(skills.skills);
      if (section !== '') developer.push({ type: 'input_text', text: section });
    }
  }
  if (developer.length > 0) items.push({ type: 'message', role: 'developer', content: developer });

  if (cwdChanged) {
    const user: ContentItem[] = [];
    if (src.weftHome !== null) {
      const docs = await discoverProjectDocs({
        cwd: s.cwd,
        weftHome: src.weftHome,
        maxBytes: src.projectDocMaxBytes,
        fallbackFilenames: [...src.projectDocFallbackFilenames],
        projectRootMarkers: [...src.projectRootMarkers],
      });
      warnings.push(...docs.warnings);
      if (docs.text !== null) {
        const rendered = renderProjectDocsMessage(s.cwd, docs.text);
        if (isKnownResponseItem(rendered) && rendered.type === 'message') user.push(...rendered.content);
      }
    }
    const env = currentEnvironment(s.cwd, src.env, src.now);
    user.push({
      type: 'input_text',
      text: renderEnvironmentContext({ ...env, networkEnabled: networkOn(s.sandboxPolicy) }),
    });
    items.push({ type: 'message', role: 'user', content: user });
  }
  return { items, warnings };
}
