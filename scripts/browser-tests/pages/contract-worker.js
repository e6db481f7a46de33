// A dedicated Worker that runs the Device contract checks of the real built
// wasm (worker/src/device_contract.rs through worker/src/opfs.rs) against a
// fresh OPFS file, and reports { ok, passed } or { ok: false, message }.
import init, { deviceContract } from "/pkg/dist/wasm/tinyjoin_worker.js";

async function run() {
  await init();
  const root = await navigator.storage.getDirectory();
  const name = `device-contract-${crypto.randomUUID()}.bin`;
  const file = await root.getFileHandle(name, { create: true });
  const handle = await file.createSyncAccessHandle();
  try {
    const passed = deviceContract(handle);
    return { ok: true, passed, size: handle.getSize() };
  } finally {
    handle.close();
    await root.removeEntry(name);
  }
}

run().then(
  (r) => postMessage(r),
  (e) => postMessage({ ok: false, message: String(e && e.message ? e.message : e) }),
);
