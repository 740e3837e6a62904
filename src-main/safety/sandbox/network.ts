import type { SandboxPolicy } from '../../../src-preload/protocol';

/** Whether commands under `policy` get network access (omitted `networkAccess` means no). */
export function networkAllowed(policy: SandboxPolicy): boolean {
  return policy.type === 'dangerFullAccess' || policy.networkAccess === true;
}
