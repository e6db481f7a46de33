// Every export declared in client-ts/src/wasm/tinyjoin_worker.d.ts (kept by
// hand so TypeScript compiles without a wasm build) must exist in the module
// wasm-bindgen generated; a rename in worker/src/lib.rs fails the build here.
import { readFileSync } from "node:fs";

const root = new URL("..", import.meta.url);
const decl = readFileSync(new URL("client-ts/src/wasm/tinyjoin_worker.d.ts", root), "utf8");
const gen = readFileSync(new URL("client-ts/dist/wasm/tinyjoin_worker.js", root), "utf8");

const missing = [];
for (const [, name] of decl.matchAll(/export (?:default )?(?:class|function) (\w+)/g)) {
  if (name === "init") continue; // the default export of --target web
  if (!new RegExp(`export (class|function) ${name}\\b`).test(gen)) missing.push(name);
}
for (const [, cls, body] of decl.matchAll(/export class (\w+) \{([\s\S]*?)\n\}/g)) {
  for (const [, member] of body.matchAll(/^\s+(?:static |readonly )?(\w+)[(:]/gm)) {
    if (member === "constructor" || member === "free") continue;
    if (!gen.includes(` ${member}(`) && !gen.includes(`get ${member}()`)) missing.push(`${cls}.${member}`);
  }
}
if (missing.length > 0) {
  console.error(`check-wasm-exports: declared but not generated: ${missing.join(", ")}`);
  process.exit(1);
}
console.log("check-wasm-exports: ok");
