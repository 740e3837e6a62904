// A project and a Weft home for benchmarks that drive `weft app-server` against the mock Responses server.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** A Weft home at `home` whose model is the mock server at `url` (never asks; writes only the workspace). */
export function writeMockHome(home: string, url: string, retries: number): void {
  mkdirSync(home, { recursive: true });
  writeFileSync(
    join(home, 'config.toml'),
    `model = "mock-model"\nmodel_provider = "mock"\napproval_policy = "never"\nsandbox_mode = "workspace-write"\n[model_providers.mock]\nname = "Mock"\nbase_url = "${url}"\nenv_key = "MOCK_API_KEY"\nwire_api = "responses"\nrequest_max_retries = ${retries}\n`,
  );
}

/** `count` files of 8 KB at `<root>/d<i % 30>/f<i>.txt`. */
export function writeSmallFiles(root: string, count: number): void {
  for (let i = 0; i < count; i++) {
    const dir = join(root, `d${i % 30}`);
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, `f${i}.txt`), `${`${i}`.padEnd(8191, '.')}\n`);
  }
}
