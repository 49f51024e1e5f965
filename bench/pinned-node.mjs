// Every benchmark runs on the Node the platform runs on: the pinned `node` dev dependency that npm
// scripts put first on PATH. A benchmark started with another Node (`node bench/x.mjs` where the
// system's Node is 20) measured that Node instead, and Node 20's AsyncLocalStorage makes every
// promise run async hooks: get_dataset cost the platform thread 35-40% more CPU there. Importing this module refuses
// such a run instead of printing figures `npm start` never shows.
import { readFileSync } from "node:fs";

const pinned = JSON.parse(readFileSync(new URL("../node_modules/node/package.json", import.meta.url), "utf8")).version;
if (process.version !== `v${pinned}`) {
  console.error(`benchmarks run on the pinned Node ${pinned} (this is ${process.version}): use \`npm run bench\` or \`npm run bench:<name>\``);
  process.exit(2);
}
