//! The wire protocol between a TinyJoin client and the owner Worker: the bytes
//! that cross `postMessage` (owner's own tab) and the `BroadcastChannel`
//! (follower tabs). `worker/PROTOCOL.md` is the normative spec; this module is
//! its one Rust mirror and `client-ts/src/protocol.ts` its one TypeScript
//! mirror (tests on both sides compare each mirror with the spec and with the
//! golden vectors in `worker/protocol-vectors.txt`).
//!
//! Invariants:
//! - Every message starts with the same envelope layout, in every protocol
//!   version: magic, version, kind, epoch, client id, request id. A receiver
//!   that cannot understand a version can still read who asked and answer
//!   with a typed `PROTOCOL_VERSION` error.
//! - Messages come from other tabs and are untrusted. Decoding checks every
//!   length and count against the bytes that remain before allocating, never
//!   panics, and rejects trailing bytes. A malformed message yields a
//!   [`DecodeError`] that still carries the envelope when it was readable, so
//!   the owner can answer the sender instead of going silent.
//! - Integers are little-endian, fixed width; strings are UTF-8 with a `u32`
//!   byte length. Fixed widths keep the TypeScript decoder a handful of
//!   `DataView` calls; values are tagged, so a row of small numbers costs
//!   9 bytes per value, which is cheap next to one JS call per value.
//!
//! - `message`: the constants (kinds, tags, codes, limits) and the message
//!   types: envelope, requests, responses, values, errors.
//! - `encode`: `Writer` and the encoders.
//! - `decode`: the bounds-checked reader and the validating decoders.

mod decode;
mod encode;
mod message;

pub use decode::{decode_params, decode_request, decode_response};
pub use encode::{
    encode_request, encode_response, encode_response_body, encode_response_body_into, request_kind,
    Writer,
};
pub use message::*;

#[cfg(test)]
mod tests;
