// `weft checkpoints`: the size of the checkpoint store and its garbage collection.
import { parseArgs } from 'node:util';
import { cleanForkLeftovers, describeForkLeftovers } from '../checkpoints/fork-leftovers';
import { checkpointSettings } from '../checkpoints/settings';
import { CheckpointService } from '../checkpoints/service';
import { formatBytes } from '../checkpoints/tracker-files';
import { loadConfig, resolveWeftHome } from '../config';
import { errorMessage } from '../util/errors';

const USAGE = `Usage: weft checkpoints gc [--json]
       weft checkpoints size [--json]

Checkpoints keep the files each turn changed (WEFT_HOME/checkpoints), so a turn can be undone with
its files. Config \`[checkpoints]\`: keep_turns (per thread), keep_days, max_file_bytes, max_turn_bytes.

  gc     Clean up after forks a crash interrupted (keeping any that hold work found nowhere else),
         drop checkpoints older than the retention keeps, then the stored content nothing refers to
  size   Show how much disk the checkpoints take
`;

export async function runCheckpointsCommand(argv: string[]): Promise<number> {
  const [sub, ...rest] = argv;
  if (sub === undefined || sub === 'help' || sub === '--help' || sub === '-h') {
    process.stdout.write(USAGE);
    return sub === undefined ? 2 : 0;
  }
  if (sub !== 'gc' && sub !== 'size') {
    process.stderr.write(`weft checkpoints: unknown sub-command "${sub}"\n\n${USAGE}`);
    return 2;
  }
  try {
    const { values } = parseArgs({ args: rest, options: { json: { type: 'boolean' } } });
    const weftHome = resolveWeftHome(process.env);
    const { config } = await loadConfig({ weftHome, cwd: process.cwd(), env: process.env });
    const settings = checkpointSettings(config, weftHome);
    const service = new CheckpointService(settings.service);
    if (sub === 'size') {
      const bytes = await service.sizeOnDisk();
      process.stdout.write(
        values.json === true
          ? `${JSON.stringify({ bytes })}\n`
          : `Checkpoints take ${formatBytes(bytes)} in ${service.dir}.\n`,
      );
      return 0;
    }
    // Forks a crash interrupted first: their files are judged against stored content gc may remove.
    const forks = await cleanForkLeftovers({
      worktreesDir: settings.worktreesDir,
      forks: service.forks,
      blobs: service.blobs,
    });
    const result = await service.gc();
    if (values.json === true) process.stdout.write(`${JSON.stringify({ ...result, forks })}\n`);
    else {
      process.stdout.write(
        `Dropped ${result.droppedRecords} checkpoint record(s) past retention; removed ${result.removedBlobs} stored file version(s) (${formatBytes(result.freedBytes)}); ` +
          `${formatBytes(result.keptBytes)} kept in ${service.dir}.\n`,
      );
      for (const line of describeForkLeftovers(forks))
        process.stdout.write(`${line.charAt(0).toUpperCase()}${line.slice(1)}.\n`);
    }
    return 0;
  } catch (error) {
    process.stderr.write(`weft checkpoints: ${errorMessage(error)}\n`);
    return 1;
  }
}
