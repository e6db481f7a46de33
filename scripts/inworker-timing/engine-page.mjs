// Shared by opfs-calls.mjs and query-runs.mjs: the engines named by
// --engines (from a tool's own specs), the comparison's packages when SQLite
// is among them, and a headless Chromium page on this folder's page.html,
// served with the package (/pkg/), this folder (/h/), the comparison's web
// files (/cmp/) and its node_modules (/nm/).
import { join } from "node:path";
import { COMPARE_DIR, ROOT, ensureCompareDeps, launchBrowser, serve } from "../compare/lib/harness.mjs";

/** Resolves to { engines, page, close() }; `jsFlags`: V8 flags for Chromium, or null. */
export async function openEnginePage(label, specs, enginesFlag, jsFlags) {
  const engines = String(enginesFlag ?? Object.keys(specs).join(",")).split(",");
  for (const e of engines) if (!(e in specs)) throw new Error(`unknown engine ${e}; known: ${Object.keys(specs).join(", ")}`);
  // SQLite WASM comes from scripts/compare's own packages, installed on first use.
  if (engines.some((e) => specs[e].engine === "sqlite")) ensureCompareDeps();
  const server = await serve({
    "/pkg/": join(ROOT, "client-ts"),
    "/h/": join(ROOT, "scripts/inworker-timing"),
    "/cmp/": join(COMPARE_DIR, "web"),
    "/nm/": join(COMPARE_DIR, "node_modules"),
  });
  const browser = await launchBrowser(label, jsFlags);
  const close = async () => {
    await browser.close();
    await server.close();
  };
  try {
    const page = await browser.context.newPage();
    await page.goto(`${server.origin}/h/page.html`);
    return { engines, page, close };
  } catch (e) {
    await close();
    throw e;
  }
}
