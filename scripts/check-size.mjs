// Checks the built package against client-ts/size-budget.json: raw and gzip
// sizes of the wasm, of the wasm-bindgen glue, and of all other dist/*.js
// together ("js"). Prints every size, exits 1 if any exceeds its budget.
import { readFileSync, readdirSync } from "node:fs";
import { gzipSync } from "node:zlib";

const pkg = new URL("../client-ts/", import.meta.url);
const budget = JSON.parse(readFileSync(new URL("size-budget.json", pkg), "utf8")).files;

function sizes(paths) {
  const bytes = Buffer.concat(paths.map((p) => readFileSync(new URL(p, pkg))));
  return { raw: bytes.length, gzip: gzipSync(bytes, { level: 9 }).length };
}

const js = readdirSync(new URL("dist/", pkg)).filter((f) => f.endsWith(".js")).map((f) => `dist/${f}`);
let over = 0;
for (const [name, limit] of Object.entries(budget)) {
  const got = sizes(name === "js" ? js : [name]);
  for (const k of ["raw", "gzip"]) {
    const ok = got[k] <= limit[k];
    if (!ok) over++;
    console.log(`size: ${name} ${k} ${got[k]} / ${limit[k]} ${ok ? "ok" : "OVER BUDGET"}`);
  }
}
process.exit(over > 0 ? 1 : 0);
