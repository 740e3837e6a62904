/**
 * Profiles: `profile = "<name>"` (the highest layer that sets it wins, `-c profile=<name>` included)
 * selects `[profiles.<name>]`, whose keys form a layer above the config files and below the `-c`
 * flags. The table may be spread over several files; the higher file wins key by key.
 */
import { ConfigError } from './errors';
import { getPath, isTable, mergeDocuments } from './document';
import type { TomlDocument } from './document';
import type { ConfigLayer } from './layers';
import { closestMatch } from './suggest';
import { formatKeyPath } from './toml-keys';

export interface ProfileChoice {
  name: string;
  /** The layer whose `profile` key chose it. */
  chosenBy: ConfigLayer;
}

/** The profile named by the highest layer that sets `profile`, or null. `layers` lowest first. */
export function chosenProfile(layers: readonly ConfigLayer[]): ProfileChoice | null {
  for (const layer of [...layers].reverse()) {
    const name = layer.doc['profile'];
    if (typeof name === 'string') return { name, chosenBy: layer };
  }
  return null;
}

/** The `[profiles.<name>]` keys as a layer. Throws ConfigError (with suggestions) when no layer defines it. */
export function profileLayer(choice: ProfileChoice, layers: readonly ConfigLayer[], userFile: string): ConfigLayer {
  const { name } = choice;
  const defining = layers.filter((layer) => isTable(getPath(layer.doc, ['profiles', name])));
  if (defining.length === 0) throw unknownProfile(choice, layers, userFile);
  const doc = defining.reduce<TomlDocument>((merged, layer) => {
    const table = getPath(layer.doc, ['profiles', name]);
    return isTable(table) ? mergeDocuments(merged, table) : merged;
  }, {});
  const writer = (path: readonly (string | number)[]): ConfigLayer | undefined =>
    [...defining].reverse().find((layer) => getPath(layer.doc, ['profiles', name, ...path]) !== undefined);
  return {
    source: 'profile',
    file: null,
    doc,
    profile: name,
    place: (path) =>
      (writer(path) ?? defining[defining.length - 1] ?? choice.chosenBy).place(['profiles', name, ...path]),
    origin: () => `profile ${name}`,
    originPlace: () => `profile ${name}`,
  };
}

function unknownProfile(choice: ProfileChoice, layers: readonly ConfigLayer[], userFile: string): ConfigError {
  const known = new Set<string>();
  for (const layer of layers) {
    const profiles = layer.doc['profiles'];
    if (isTable(profiles)) for (const key of Object.keys(profiles)) known.add(key);
  }
  const place = choice.chosenBy.place(['profile']);
  const table = `[${formatKeyPath(['profiles', choice.name])}]`;
  let message = `${place.at}: profile "${choice.name}" is not defined`;
  if (known.size === 0) {
    message += `; no profiles are defined: add a ${table} table to ${userFile}, or remove \`profile\``;
  } else {
    const suggestion = closestMatch(choice.name, [...known]);
    message += `; defined profiles: ${[...known].sort().join(', ')}`;
    if (suggestion !== null) message += ` (did you mean "${suggestion}"?)`;
  }
  return new ConfigError(message, place);
}
