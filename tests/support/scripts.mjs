// The environment a starter's package.json script builds with: the `NAME=value` words
// before `wrangler dev` or `wrangler deploy` (e.g. `deploy:small`'s nightly toolchain and
// flags). Used by the starter test and the bench's release size, which run wrangler
// themselves with those variables.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

/** `{ NAME: value }` of `script` in `dir`'s package.json; throws if it is not of that form. */
export function scriptEnv(dir, script) {
  const line = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')).scripts[script];
  const [, words] = line?.match(/^((?:\w+=(?:'[^']*'|\S+)\s+)*)wrangler (?:dev|deploy)$/) ?? [];
  if (words === undefined) throw new Error(`${script} is not NAME=value words, then wrangler dev or deploy: ${line}`);
  return Object.fromEntries([...words.matchAll(/(\w+)=('[^']*'|\S+)/g)].map(([, k, v]) => [k, v.replace(/^'|'$/g, '')]));
}
