// The `yaml` package's parts a SKILL.md's front matter needs, in a module of its own that skills.ts imports
// on first use: a dynamic import of the package itself would, once bundled, give its CommonJS exports only
// as `default`.
export { isMap, isScalar, LineCounter, parseDocument } from 'yaml';
