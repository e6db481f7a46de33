//! XXH64 (Yann Collet's xxHash, 64-bit variant), the page checksum's hash
//! (FORMAT.md, section 3).
//!
//! Why not CRC-32: a page is checksummed on every write and every read from
//! the device, and WebAssembly has no carry-less multiply, so CRC-32 runs
//! from tables there at about 1-2 GB/s (4 KiB in 2-4 µs, several pages per
//! commit and per cold read). XXH64 takes 8 bytes per multiply-rotate in
//! four independent lanes, several times faster on 64-bit integer
//! arithmetic, and detects random damage as well as any 32-bit check can
//! once truncated (a 2^-32 chance of missing it).
//!
//! The algorithm follows the xxHash specification (XXH64 with a seed);
//! the tests check it against the reference implementation's outputs.

const P1: u64 = 0x9E37_79B1_85EB_CA87;
const P2: u64 = 0xC2B2_AE3D_27D4_EB4F;
const P3: u64 = 0x1656_67B1_9E37_79F9;
const P4: u64 = 0x85EB_CA77_C2B2_AE63;
const P5: u64 = 0x27D4_EB2F_1656_67C5;

#[inline(always)]
fn read64(b: &[u8], at: usize) -> u64 {
    let mut w = [0u8; 8];
    w.copy_from_slice(&b[at..at + 8]);
    u64::from_le_bytes(w)
}

#[inline(always)]
fn round(acc: u64, input: u64) -> u64 {
    acc.wrapping_add(input.wrapping_mul(P2))
        .rotate_left(31)
        .wrapping_mul(P1)
}

#[inline(always)]
fn merge_round(acc: u64, v: u64) -> u64 {
    (acc ^ round(0, v)).wrapping_mul(P1).wrapping_add(P4)
}

/// XXH64 of `data` with `seed`.
pub fn xxh64(data: &[u8], seed: u64) -> u64 {
    let len = data.len();
    let mut at = 0;
    let mut h = if len >= 32 {
        let mut v = [
            seed.wrapping_add(P1).wrapping_add(P2),
            seed.wrapping_add(P2),
            seed,
            seed.wrapping_sub(P1),
        ];
        for stripe in data.chunks_exact(32) {
            v[0] = round(v[0], read64(stripe, 0));
            v[1] = round(v[1], read64(stripe, 8));
            v[2] = round(v[2], read64(stripe, 16));
            v[3] = round(v[3], read64(stripe, 24));
        }
        at = len - len % 32;
        let mut h = v[0]
            .rotate_left(1)
            .wrapping_add(v[1].rotate_left(7))
            .wrapping_add(v[2].rotate_left(12))
            .wrapping_add(v[3].rotate_left(18));
        for lane in v {
            h = merge_round(h, lane);
        }
        h
    } else {
        seed.wrapping_add(P5)
    };
    h = h.wrapping_add(len as u64);
    while at + 8 <= len {
        h ^= round(0, read64(data, at));
        h = h.rotate_left(27).wrapping_mul(P1).wrapping_add(P4);
        at += 8;
    }
    if at + 4 <= len {
        let mut w = [0u8; 4];
        w.copy_from_slice(&data[at..at + 4]);
        h ^= u64::from(u32::from_le_bytes(w)).wrapping_mul(P1);
        h = h.rotate_left(23).wrapping_mul(P2).wrapping_add(P3);
        at += 4;
    }
    for &b in &data[at..] {
        h ^= u64::from(b).wrapping_mul(P5);
        h = h.rotate_left(11).wrapping_mul(P1);
    }
    h ^= h >> 33;
    h = h.wrapping_mul(P2);
    h ^= h >> 29;
    h = h.wrapping_mul(P3);
    h ^ (h >> 32)
}

#[cfg(test)]
mod tests {
    use super::xxh64;

    /// Outputs of the reference implementation (xxhsum -H64, and the
    /// published examples of the Python binding).
    #[test]
    fn matches_the_reference() {
        assert_eq!(xxh64(b"", 0), 0xEF46_DB37_51D8_E999);
        assert_eq!(xxh64(b"a", 0), 0xD24E_C4F1_A98C_6E5B);
        assert_eq!(xxh64(b"abc", 0), 0x44BC_2CF5_AD77_0999);
        assert_eq!(
            xxh64(b"Nobody inspects the spammish repetition", 0),
            0xFBCE_A83C_8A37_8BF1
        );
    }

    /// Every tail length (0-31 bytes after the stripes) and the seed
    /// change the hash: no input byte or seed bit is left out.
    #[test]
    fn every_byte_and_the_seed_count() {
        let data: Vec<u8> = (0..200u32).map(|i| (i * 37 % 251) as u8).collect();
        for len in 0..data.len() {
            let base = xxh64(&data[..len], 7);
            assert_ne!(base, xxh64(&data[..len], 8), "seed ignored at {len}");
            for i in 0..len {
                let mut d = data[..len].to_vec();
                d[i] ^= 0x10;
                assert_ne!(base, xxh64(&d, 7), "byte {i} of {len} ignored");
            }
        }
    }
}
