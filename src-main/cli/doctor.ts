// `weft doctor`: checks the machine for what Weft needs (the model set-up and the command sandbox) and
// says exactly what to fix. Exit status 0 when everything works, 1 when something does not.
import { parseArgs } from 'node:util';
import { resolveWeftHome } from '../config/home';
import { loadConfig } from '../config/load';
import { commandEnvPolicy, DEFAULT_COMMAND_ENV_POLICY } from '../safety/command-env';
import { sandboxStatus } from '../safety/sandbox/doctor';
import { errorMessage } from '../util/errors';
import { modelStatus } from './doctor-model';
import { locateBrowser } from '../browser/locate';

const USAGE = `Usage: weft doctor [--json]

Checks the model set-up (the config and its warnings, the provider, whether its API key is set, that
its base URL answers GET /models) and that Weft can sandbox commands on this machine, layer by layer
(filesystem, network, unix sockets, environment filter), and prints concrete fixes. Also says which
Chromium or Chrome the agent's browser tools drive, if any (optional: no effect on the exit status). Exit status 0
when everything works, 1 when a turn could not run or a sandbox layer is missing.

Options:
      --json   Print the status as one JSON object
  -h, --help   Show this help
`;

export async function runDoctorCommand(argv: string[]): Promise<number> {
  let values;
  try {
    ({ values } = parseArgs({
      args: argv,
      options: { json: { type: 'boolean' }, help: { type: 'boolean', short: 'h' } },
    }));
  } catch (error) {
    process.stderr.write(`weft doctor: ${errorMessage(error)}\n\n${USAGE}`);
    return 2;
  }
  if (values.help === true) {
    process.stdout.write(USAGE);
    return 0;
  }
  let envPolicy = DEFAULT_COMMAND_ENV_POLICY;
  let browserPath: string | undefined;
  try {
    const loaded = await loadConfig({ weftHome: resolveWeftHome(process.env), cwd: process.cwd(), env: process.env });
    envPolicy = commandEnvPolicy(loaded.config.shell_environment_policy);
    browserPath = loaded.config.browser?.path;
  } catch (error) {
    process.stderr.write(
      `weft doctor: the config could not be read (${errorMessage(error)}); checking the default environment filter.\n`,
    );
  }
  const [model, status, browser] = await Promise.all([
    modelStatus(process.cwd(), process.env),
    sandboxStatus(process.platform, envPolicy),
    locateBrowser(browserPath),
  ]);
  const allLayers = status.layers.every((layer) => layer.ok);
  const code = status.available && allLayers && model.ready ? 0 : 1;
  if (values.json === true) {
    process.stdout.write(`${JSON.stringify({ ...status, model, browser })}\n`);
    return code;
  }
  const mark = { ok: 'OK', warn: 'WARNING', fail: 'PROBLEM' } as const;
  const lines = [`Model: ${model.ready ? 'OK' : 'TURNS CANNOT RUN'}`];
  for (const check of model.checks) lines.push(`  ${check.name}: ${mark[check.state]} — ${check.detail}`);
  lines.push('', `Sandbox (${status.platform}, ${status.mechanism}): ${status.available ? 'OK' : 'NOT AVAILABLE'}`);
  for (const detail of status.details) lines.push(`  ${detail}`);
  lines.push('', 'Containment layers:');
  for (const layer of status.layers) lines.push(`  ${layer.name}: ${layer.ok ? 'OK' : 'MISSING'} — ${layer.detail}`);
  if (!status.available) {
    lines.push('', `Problem: ${status.reason ?? 'unknown'}`, `Fix: ${status.fix ?? 'none known'}`);
    lines.push('', 'Until this is fixed, Weft asks before running each command, because it would run unsandboxed.');
  }
  // The browser is optional: without one the `browser` tools are not offered, and nothing else changes.
  lines.push(
    '',
    browser.found
      ? `Browser (the agent's \`browser\` tools): OK — ${browser.path}${browser.source === 'config' ? ' ([browser] path)' : ''}`
      : `Browser (the agent's \`browser\` tools): NOT FOUND — ${browser.reason}. The tools are not offered until one is.`,
  );
  process.stdout.write(`${lines.join('\n')}\n`);
  return code;
}
