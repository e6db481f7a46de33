// Checks the built package against client-ts/size-budget.json: raw and gzip
// sizes of the wasm, of the wasm-bindgen glue, and ("js") of the JavaScript
// each kind of context loads besides the glue: a page the entry index.js and
// the owner Worker it starts, owner-worker.js; a Worker using the in-worker
// API the entry worker.js (scripts/build-wasm makes each entry one file; the
// modules tsc left beside them are not loaded). Prints every size, exits 1
// if any exceeds its budget.
import { readFileSync } from "node:fs";
import { gzipSync } from "node:zlib";

const pkg = new URL("../client-ts/", import.meta.url);
const budget = JSON.parse(readFileSync(new URL("size-budget.json", pkg), "utf8")).files;

function sizes(paths) {
  const bytes = Buffer.concat(paths.map((p) => readFileSync(new URL(p, pkg))));
  return { raw: bytes.length, gzip: gzipSync(bytes, { level: 9 }).length };
}

const JS = { "js (page: index.js, owner-worker.js)": ["dist/index.js", "dist/owner-worker.js"], "js (worker.js)": ["dist/worker.js"] };
let over = 0;
for (const [name, limit] of Object.entries(budget)) {
  for (const [label, files] of name === "js" ? Object.entries(JS) : [[name, [name]]]) {
    const got = sizes(files);
    for (const k of ["raw", "gzip"]) {
      const ok = got[k] <= limit[k];
      if (!ok) over++;
      console.log(`size: ${label} ${k} ${got[k]} / ${limit[k]} ${ok ? "ok" : "OVER BUDGET"}`);
    }
  }
}
process.exit(over > 0 ? 1 : 0);
