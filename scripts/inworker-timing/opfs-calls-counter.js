// Imported first by opfs-calls-worker.js: wraps the OPFS sync access
// handle's methods to count calls, bytes and time (before any engine loads).
export const calls = {};
const proto = FileSystemSyncAccessHandle.prototype;
for (const m of ["write", "read", "flush", "getSize", "truncate"]) {
  const original = proto[m];
  calls[m] = { n: 0, us: 0, bytes: 0 };
  proto[m] = function (...args) {
    const t0 = performance.now();
    try {
      return original.apply(this, args);
    } finally {
      calls[m].n++;
      calls[m].us += (performance.now() - t0) * 1000;
      if (args[0] && args[0].byteLength !== undefined) calls[m].bytes += args[0].byteLength;
    }
  };
}

/** A copy of the counts so far, for `since`. */
export const snapshot = () => JSON.parse(JSON.stringify(calls));

/** The calls made since `before` (a `snapshot`), per method that had any. */
export function since(before) {
  const out = {};
  for (const [m, c] of Object.entries(calls)) {
    const n = c.n - before[m].n;
    if (n > 0) out[m] = { n, us: c.us - before[m].us, bytes: c.bytes - before[m].bytes };
  }
  return out;
}
