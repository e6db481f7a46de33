// The physical limit of a durable commit on this machine: `n` bare
// write + flush calls (one 4 KiB block each) on an OPFS sync access handle.
onmessage = async (ev) => {
  const { n, file } = ev.data;
  try {
    const root = await navigator.storage.getDirectory();
    const fh = await root.getFileHandle(file, { create: true });
    const h = await fh.createSyncAccessHandle();
    const block = new Uint8Array(4096).fill(7);
    const t0 = performance.now();
    for (let i = 0; i < n; i++) {
      block[0] = i & 255;
      h.write(block, { at: (i % 16) * 4096 });
      h.flush();
    }
    const ms = performance.now() - t0;
    h.close();
    await root.removeEntry(file);
    postMessage({ ok: true, ms });
  } catch (e) {
    postMessage({ ok: false, error: String(e) });
  }
};
