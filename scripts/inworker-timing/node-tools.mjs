// Shared by the Node-side diagnostic tools of this folder (stalls.mjs,
// tiering.mjs, first-use.mjs): the built package loaded in this process, and
// the names of a module's functions.
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { pathToFileURL } from "node:url";

/** The package built in `dist` (client-ts/dist) loaded here: its wasm instantiated, `openInWorker` returned. */
export async function openPackageInNode(dist) {
  const url = (p) => pathToFileURL(resolve(dist, p)).href;
  const { default: init } = await import(url("wasm/tinyjoin_worker.js"));
  await init({ module_or_path: readFileSync(resolve(dist, "wasm/tinyjoin_worker_bg.wasm")) });
  const { openInWorker } = await import(url("worker.js"));
  return openInWorker;
}

/** Function index -> name, from a module's "name" custom section (imports counted). */
export function functionNames(bytes) {
  const names = new Map();
  let p = 8;
  const leb = () => {
    let v = 0;
    let shift = 0;
    for (;;) {
      const b = bytes[p++];
      v += (b & 0x7f) * 2 ** shift;
      shift += 7;
      if (b < 0x80) return v;
    }
  };
  const text = (n) => new TextDecoder().decode(bytes.subarray(p, (p += n)));
  while (p < bytes.length) {
    const id = bytes[p++];
    const size = leb();
    const end = p + size;
    if (id === 0 && text(leb()) === "name") {
      while (p < end) {
        const sub = bytes[p++];
        const subEnd = leb() + p;
        if (sub === 1) {
          for (let n = leb(); n > 0; n--) {
            const index = leb();
            names.set(index, text(leb()));
          }
        }
        p = subEnd;
      }
    }
    p = end;
  }
  return names;
}
