/**
 * The `weft` command. Each sub-command is loaded on demand so that, for example, `weft apply-patch`
 * never pays for the model client and `weft exec` never loads the server.
 */
import { acpCommand } from './cli/acp-command';
import { appServerCommand } from './cli/app-server-command';
import { applyPatchCommand } from './cli/apply-patch-command';
import { execCommand } from './cli/exec-command';
import { mcpServerCommand } from './cli/mcp-server-command';
import { serveCommand } from './cli/serve-command';
import { runToExit } from './cli/start';
import { VERSION } from './version';

const USAGE = `Weft ${VERSION} — a coding agent for your projects.

Usage: weft <command> [options]

Commands:
  exec [options] <prompt|->   Run one task headless in the current directory; the answer goes to stdout
  serve [--port N] [--cd DIR] Open the Weft UI in a browser (loopback only, token in the URL)
  app-server                  Speak the app-server protocol (JSON-RPC, one JSON object per line) on stdio
  mcp-server [--port N]       Serve Weft as an MCP server (tools weft, weft-reply) on stdio or HTTP
  acp                         Speak the Agent Client Protocol on stdio (for editors such as Zed)
  review [--base B|--commit SHA] Review the uncommitted changes, a branch or a commit; print the findings
  threads <command>           List, read, rename, archive, search and import threads
  apply-patch [patch]         Apply a patch (Codex apply_patch format) from the argument or stdin
  sandbox [options] -- CMD    Run one command inside Weft's sandbox
  rules <command>             List, add and revoke remembered approval rules
  hooks list|trust|disable    Show the lifecycle hooks, trust them as they are, turn them off
  mcp list|get|add|remove     Manage the MCP servers whose tools the agent can use
  environments list|add|remove|check  Remote machines and containers (ssh, kubectl exec…); use one with --env
  checkpoints gc|size         Collect old file checkpoints; show their size
  worktrees list|prune|handoff  Show, clean up, or hand off the worktrees of worktree threads
  automations <command>       Agents that run on a schedule: list, add, edit, rm, run, runs, due
  usage [--days N] [--json]   Tokens used per day and what they cost ([model_prices] in config.toml)
  config [show|get|set|trust] Show the effective config and where each value comes from; change it
  doctor                      Check the sandbox and the setup, with concrete fixes
  help                        Show this help

Run \`weft <command> --help\` for a command's options.
`;

async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  switch (command) {
    case 'exec':
    case 'e':
      return execCommand(rest);
    case 'apply-patch':
    case 'apply_patch':
      return applyPatchCommand(rest);
    case 'app-server':
      return appServerCommand(rest);
    case 'serve':
      return serveCommand(rest);
    case 'mcp-server':
      return mcpServerCommand(rest);
    case 'acp':
      return acpCommand(rest);
    case 'review': {
      const [{ runReviewCommand }, { createAppHost }] = await Promise.all([
        import('./cli/review'),
        import('./server/app-host'),
      ]);
      return runReviewCommand(rest, async ({ cwd }) => {
        const app = await createAppHost({ cwd, log: () => undefined });
        return { host: app.host, close: () => app.close() };
      });
    }
    case 'threads':
      return (await import('./cli/threads')).runThreadsCommand(rest);
    case 'sandbox':
      return (await import('./cli/sandbox')).runSandboxCommand(rest);
    case 'rules':
      return (await import('./cli/rules')).runRulesCommand(rest);
    case 'hooks':
      return (await import('./cli/hooks')).runHooksCommand(rest);
    case 'mcp':
      return (await import('./cli/mcp')).runMcpCommand(rest);
    case 'environments':
    case 'envs':
      return (await import('./cli/environments')).runEnvironmentsCommand(rest);
    case 'checkpoints':
      return (await import('./cli/checkpoints')).runCheckpointsCommand(rest);
    case 'worktrees':
      return (await import('./cli/worktrees')).runWorktreesCommand(rest);
    case 'automations':
      return (await import('./cli/automations')).runAutomationsCommand(rest);
    case 'usage':
      return (await import('./cli/usage')).runUsageCommand(rest);
    case 'config':
      return (await import('./cli/config')).runConfigCommand(rest);
    case 'doctor':
      return (await import('./cli/doctor')).runDoctorCommand(rest);
    case '--version':
    case '-V':
      process.stdout.write(`weft ${VERSION}\n`);
      return 0;
    case undefined:
    case 'help':
    case '--help':
    case '-h':
      process.stdout.write(USAGE);
      return 0;
    default:
      process.stderr.write(`weft: unknown command "${command}"\n\n${USAGE}`);
      return 2;
  }
}

runToExit(() => main(process.argv.slice(2)));
