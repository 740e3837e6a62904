// `weft/projectConfig/list` and `weft/projectConfig/trust`: a client shows the person the project
// config files that wait for a yes (new or changed since the project was trusted) and records the yes
// for exactly the contents shown.
import type { WeftProjectConfigListResult } from '../../../src-preload/protocol';
import { projectState, setProjectTrust, type ProjectState } from '../../config';
import { ConfigError } from '../../config/errors';
import type { HandlerTable } from '../dispatcher';
import { invalidParams, invalidRequest } from '../rpc-error';
import { resolveCwd } from '../thread-factory';
import type { HandlerContext } from './context';

type ProjectConfigHandlers = Pick<HandlerTable, 'weft/projectConfig/list' | 'weft/projectConfig/trust'>;

function listResult(project: ProjectState): WeftProjectConfigListResult {
  return { root: project.root, trustLevel: project.record.level, files: project.files.map((f) => f.info) };
}

export function projectConfigHandlers(ctx: HandlerContext): ProjectConfigHandlers {
  const { environment } = ctx;
  const state = async (cwd: string | null | undefined): Promise<ProjectState> => {
    try {
      return await projectState({
        weftHome: environment.weftHome,
        cwd: resolveCwd(cwd, environment.defaultCwd),
        env: environment.env,
      });
    } catch (error) {
      throw invalidParams(error instanceof Error ? error.message : String(error));
    }
  };

  return {
    'weft/projectConfig/list': async (params) => listResult(await state(params.cwd)),

    'weft/projectConfig/trust': async (params) => {
      const project = await state(params.cwd);
      const byPath = new Map(project.files.map((f) => [f.info.path, f.info]));
      const accepted: Record<string, string> = {};
      for (const wanted of params.files) {
        const file = byPath.get(wanted.path);
        if (file === undefined) {
          throw invalidParams(
            `params.files: ${wanted.path} is not a project config file of ${project.root} on the way to ${resolveCwd(params.cwd, environment.defaultCwd)}; pass the paths weft/projectConfig/list gives`,
          );
        }
        if (file.sha256 !== wanted.sha256) {
          throw invalidRequest(
            `${file.path} changed since it was listed; list the project config again and review it before trusting it`,
          );
        }
        accepted[file.relativePath] = file.sha256;
      }
      try {
        await setProjectTrust(environment.weftHome, project.root, 'trusted', accepted);
      } catch (error) {
        if (error instanceof ConfigError) throw invalidRequest(error.message);
        throw error;
      }
      return listResult(await state(params.cwd));
    },
  };
}
