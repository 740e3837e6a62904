// What `weft automations install-timer` writes so that `weft automations due` runs without the app: a
// systemd user service and timer on Linux, a LaunchAgent on macOS. Written, never enabled: the command
// prints how to turn it on.
import { mkdir, rename, writeFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import { join } from 'node:path';

export interface TimerFiles {
  dir: string;
  files: { name: string; text: string }[];
  /** What the person runs to turn it on. */
  enable: string;
}

export interface TimerInput {
  platform: NodeJS.Platform;
  /** The program and arguments that start `weft` (node and the script, or the installed binary). */
  command: readonly string[];
  weftHome: string;
  /** Where to write; default the user's systemd or LaunchAgents folder. */
  dir?: string;
  env: NodeJS.ProcessEnv;
}

const LABEL = 'dev.weft.automations';

export function timerFiles(input: TimerInput): TimerFiles {
  if (input.platform === 'darwin') {
    const dir = input.dir ?? join(homedir(), 'Library', 'LaunchAgents');
    const args = [...input.command, 'automations', 'due'].map((a) => `    <string>${xml(a)}</string>`).join('\n');
    const text = `<?xml version="1.0" encoding="UTF-8"?>
<!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
<plist version="1.0">
<dict>
  <key>Label</key>
  <string>${LABEL}</string>
  <key>ProgramArguments</key>
  <array>
${args}
  </array>
  <key>EnvironmentVariables</key>
  <dict>
    <key>WEFT_HOME</key>
    <string>${xml(input.weftHome)}</string>
  </dict>
  <key>StartInterval</key>
  <integer>60</integer>
  <key>RunAtLoad</key>
  <true/>
</dict>
</plist>
`;
    const file = join(dir, `${LABEL}.plist`);
    return { dir, files: [{ name: `${LABEL}.plist`, text }], enable: `launchctl load -w ${shell(file)}` };
  }
  const configHome = input.env['XDG_CONFIG_HOME'] ?? join(homedir(), '.config');
  const dir = input.dir ?? join(configHome, 'systemd', 'user');
  const exec = [...input.command, 'automations', 'due'].map(systemdWord).join(' ');
  const service = `[Unit]
Description=Weft automations: run what is due

[Service]
Type=oneshot
Environment=${systemdWord(`WEFT_HOME=${input.weftHome}`)}
ExecStart=${exec}
`;
  const timer = `[Unit]
Description=Weft automations: look for due runs every minute

[Timer]
OnCalendar=minutely
Persistent=true

[Install]
WantedBy=timers.target
`;
  return {
    dir,
    files: [
      { name: 'weft-automations.service', text: service },
      { name: 'weft-automations.timer', text: timer },
    ],
    enable: 'systemctl --user daemon-reload && systemctl --user enable --now weft-automations.timer',
  };
}

export async function writeTimerFiles(timer: TimerFiles): Promise<string[]> {
  await mkdir(timer.dir, { recursive: true });
  const written: string[] = [];
  for (const { name, text } of timer.files) {
    const file = join(timer.dir, name);
    await writeFile(`${file}.tmp`, text);
    await rename(`${file}.tmp`, file);
    written.push(file);
  }
  return written;
}

function xml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

/** A word of a systemd command line: quoted when it holds spaces, quotes, backslashes or `%`. */
function systemdWord(word: string): string {
  const escaped = word.replace(/%/g, '%%');
  return /[\s"'\\]/.test(escaped) ? `"${escaped.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"` : escaped;
}

function shell(word: string): string {
  return /^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}
