// The Worker side of write-shapes.mjs: times `n` commits of each shape
// (the writes listed, then one flush) on an OPFS sync access handle, over
// `rounds` interleaved rounds; replies with microseconds per commit. With
// `flush` false, no flush follows the writes (what a deferred commit pays).
const PAGE = 4096;
// One buffer per length, made before timing: the loop times the calls only.
const BUFFERS = [1, 2, 3, 4, 64].map((k) => new Uint8Array(PAGE * k).fill(7));
const pages = (k) => BUFFERS.find((b) => b.length === PAGE * k);

// Each shape writes at page offsets in a pre-sized 64-page file, so no
// commit grows it. `i` counts commits: alternate sets as a real commit
// stream alternates between two runs of pages, and superblock slots 0 and 1.
const SHAPES = {
  "1 page, 1 write (the physical-limit row)": (h, i) => h.write(pages(1), { at: (8 + (i % 16)) * PAGE }),
  "4 pages, 1 write": (h, i) => h.write(pages(4), { at: (8 + (i % 4) * 4) * PAGE }),
  "1 page + superblock, 2 writes": (h, i) => {
    h.write(pages(1), { at: (8 + (i % 16)) * PAGE });
    h.write(pages(1), { at: (i % 2) * PAGE });
  },
  "3 pages + superblock, 2 writes": (h, i) => {
    h.write(pages(3), { at: (8 + (i % 4) * 3) * PAGE });
    h.write(pages(1), { at: (i % 2) * PAGE });
  },
  "1 + 2 pages + superblock, 3 writes": (h, i) => {
    h.write(pages(1), { at: (8 + (i % 4) * 4) * PAGE });
    h.write(pages(2), { at: (10 + (i % 4) * 4) * PAGE });
    h.write(pages(1), { at: (i % 2) * PAGE });
  },
};

onmessage = async (ev) => {
  const { n, rounds, flush } = ev.data;
  try {
    const root = await navigator.storage.getDirectory();
    const fh = await root.getFileHandle("write-shapes.bin", { create: true });
    const h = await fh.createSyncAccessHandle();
    h.truncate(0);
    h.write(pages(64), { at: 0 });
    h.flush();
    const samples = Object.fromEntries(Object.keys(SHAPES).map((k) => [k, []]));
    for (let r = 0; r < rounds; r++) {
      for (const [name, shape] of Object.entries(SHAPES)) {
        const t0 = performance.now();
        for (let i = 0; i < n; i++) {
          shape(h, i);
          if (flush) h.flush();
        }
        samples[name].push(((performance.now() - t0) * 1000) / n);
      }
    }
    h.close();
    await root.removeEntry("write-shapes.bin");
    postMessage({ ok: true, samples });
  } catch (e) {
    postMessage({ ok: false, error: String(e) });
  }
};
