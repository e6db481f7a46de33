// Loaded by harness.html: exposes the package to the tests (run.mjs drives it
// with page.evaluate) and a helper that runs the OPFS Device contract in a
// real dedicated Worker.
import * as tinyjoin from "/pkg/dist/index.js";

window.tinyjoin = tinyjoin;

/** Runs `fn` and returns `{ ok, value }` or `{ ok: false, code, message }`: errors cross to Node as data. */
window.attempt = async (fn) => {
  try {
    return { ok: true, value: await fn() };
  } catch (e) {
    return { ok: false, code: e && e.code, name: e && e.name, message: String(e && e.message) };
  }
};

/** Runs the Device contract in a dedicated Worker against a fresh OPFS file. */
window.runDeviceContract = () =>
  new Promise((resolve) => {
    const w = new Worker(new URL("./contract-worker.js", import.meta.url), { type: "module" });
    w.onmessage = (ev) => {
      w.terminate();
      resolve(ev.data);
    };
    w.onerror = (ev) => {
      ev.preventDefault();
      w.terminate();
      resolve({ ok: false, message: `worker error: ${ev.message}` });
    };
  });

window.harnessReady = true;
document.title = "ready";
