//! Decoding untrusted bytes: a bounds-checked reader (every length and count
//! checked against what remains before allocating) and the validating
//! decoders, which return typed `DecodeError`s and never panic.

use super::message::*;

/// A bounds-checked cursor over untrusted bytes.
struct Reader<'a> {
    buf: &'a [u8],
    pos: usize,
}

type ReadResult<T> = std::result::Result<T, String>;

impl<'a> Reader<'a> {
    fn take(&mut self, n: usize) -> ReadResult<&'a [u8]> {
        let end = self.pos.checked_add(n).filter(|&e| e <= self.buf.len());
        let end = end.ok_or_else(|| {
            format!(
                "message ends at byte {} but {n} more bytes were expected at byte {}",
                self.buf.len(),
                self.pos
            )
        })?;
        let s = &self.buf[self.pos..end];
        self.pos = end;
        Ok(s)
    }
    fn array<const N: usize>(&mut self) -> ReadResult<[u8; N]> {
        let mut out = [0u8; N];
        out.copy_from_slice(self.take(N)?);
        Ok(out)
    }
    fn u8(&mut self) -> ReadResult<u8> {
        Ok(self.take(1)?[0])
    }
    fn u32(&mut self) -> ReadResult<u32> {
        Ok(u32::from_le_bytes(self.array()?))
    }
    fn u64(&mut self) -> ReadResult<u64> {
        Ok(u64::from_le_bytes(self.array()?))
    }
    fn i64(&mut self) -> ReadResult<i64> {
        Ok(i64::from_le_bytes(self.array()?))
    }
    fn f64(&mut self) -> ReadResult<f64> {
        Ok(f64::from_le_bytes(self.array()?))
    }
    fn remaining(&self) -> usize {
        self.buf.len() - self.pos
    }
    /// A count of items each at least `min_item` bytes long: refused when the
    /// remaining bytes cannot hold that many, before anything is allocated.
    fn count(&mut self, min_item: usize, what: &str) -> ReadResult<usize> {
        let n = self.u32()? as usize;
        if n.saturating_mul(min_item) > self.remaining() {
            return Err(format!(
                "{what} count {n} is larger than the message can hold"
            ));
        }
        Ok(n)
    }
    fn bytes(&mut self) -> ReadResult<&'a [u8]> {
        let n = self.u32()? as usize;
        self.take(n)
    }
    fn utf8(b: &[u8], what: &str) -> ReadResult<String> {
        std::str::from_utf8(b)
            .map(str::to_string)
            .map_err(|_| format!("{what} is not valid UTF-8"))
    }
    fn str(&mut self, what: &str) -> ReadResult<String> {
        let b = self.bytes()?;
        Self::utf8(b, what)
    }
    fn short_str(&mut self, what: &str) -> ReadResult<String> {
        let n = self.u8()? as usize;
        if n > MAX_ID_LEN {
            return Err(format!(
                "{what} is {n} bytes long, over the limit of {MAX_ID_LEN}"
            ));
        }
        let b = self.take(n)?;
        Self::utf8(b, what)
    }
    fn id(&mut self, what: &str) -> ReadResult<String> {
        let s = self.short_str(what)?;
        if s.is_empty() {
            return Err(format!("{what} is empty"));
        }
        Ok(s)
    }
    fn opt_id(&mut self, what: &str) -> ReadResult<Option<String>> {
        match self.u8()? {
            0 => Ok(None),
            1 => self.id(what).map(Some),
            t => Err(format!("{what}: presence flag {t} is neither 0 nor 1")),
        }
    }
    fn value(&mut self) -> ReadResult<WireValue> {
        Ok(match self.u8()? {
            tag::NULL => WireValue::Null,
            tag::INTEGER => WireValue::Integer(self.i64()?),
            tag::REAL => WireValue::Real(self.f64()?),
            tag::TEXT => WireValue::Text(self.str("text value")?),
            tag::BLOB => WireValue::Blob(self.bytes()?.to_vec()),
            t => return Err(format!("unknown value tag {t} at byte {}", self.pos - 1)),
        })
    }
    fn params(&mut self) -> ReadResult<Params> {
        Ok(match self.u8()? {
            params_tag::NONE => Params::None,
            params_tag::POSITIONAL => {
                let n = self.count(1, "parameter")?;
                let mut out = Vec::with_capacity(n);
                for _ in 0..n {
                    out.push(self.value()?);
                }
                Params::Positional(out)
            }
            params_tag::NAMED => {
                let n = self.count(5, "named parameter")?;
                let mut out = Vec::with_capacity(n);
                for _ in 0..n {
                    out.push((self.str("parameter name")?, self.value()?));
                }
                Params::Named(out)
            }
            t => return Err(format!("unknown parameter list tag {t}")),
        })
    }
    fn columns(&mut self) -> ReadResult<Vec<String>> {
        let n = self.count(4, "column")?;
        (0..n).map(|_| self.str("column name")).collect()
    }
    fn result_set(&mut self) -> ReadResult<ResultSet> {
        let columns = self.columns()?;
        let nrows = self.count(columns.len(), "row")?;
        if columns.is_empty() && nrows > 0 {
            return Err(format!("{nrows} rows of zero columns"));
        }
        let mut rows = Vec::with_capacity(nrows);
        for _ in 0..nrows {
            rows.push(
                (0..columns.len())
                    .map(|_| self.value())
                    .collect::<ReadResult<_>>()?,
            );
        }
        Ok(ResultSet {
            columns: columns.into(),
            rows,
            changes: self.u64()?,
            last_insert_rowid: self.i64()?,
        })
    }
    fn error(&mut self) -> ReadResult<WireError> {
        let code = self.str("error code")?;
        let message = self.str("error message")?;
        let position = match self.u8()? {
            0 => None,
            1 => Some(self.u32()?),
            t => return Err(format!("error position flag {t} is neither 0 nor 1")),
        };
        Ok(WireError {
            code,
            message,
            position,
        })
    }
    fn end(&self) -> ReadResult<()> {
        match self.remaining() {
            0 => Ok(()),
            n => Err(format!("{n} unexpected bytes after the end of the message")),
        }
    }
}

/// Reads the envelope; returns it with the kind byte and the body's reader.
fn decode_envelope(bytes: &[u8]) -> std::result::Result<(Envelope, u8, Reader<'_>), DecodeError> {
    let malformed = |env: Option<Envelope>, m: String| DecodeError {
        envelope: env,
        error: WireError::new(code::MALFORMED_MESSAGE, m),
    };
    if bytes.len() > MAX_MESSAGE_LEN {
        return Err(malformed(
            None,
            format!(
                "message of {} bytes exceeds the limit of {MAX_MESSAGE_LEN}",
                bytes.len()
            ),
        ));
    }
    let mut r = Reader { buf: bytes, pos: 0 };
    let head = (|| -> ReadResult<(u8, u8, u8, Envelope)> {
        let (magic, version, k) = (r.u8()?, r.u8()?, r.u8()?);
        let epoch = r.u32()?;
        let client = r.short_str("client id")?;
        let request = r.u32()?;
        Ok((
            magic,
            version,
            k,
            Envelope {
                epoch,
                client,
                request,
            },
        ))
    })();
    let (magic, version, k, env) =
        head.map_err(|m| malformed(None, format!("unreadable envelope: {m}")))?;
    if magic != MAGIC {
        return Err(malformed(None, format!("bad magic byte {magic:#04x}")));
    }
    if version != PROTOCOL_VERSION {
        let e = WireError::new(
            code::PROTOCOL_VERSION,
            format!("message has protocol version {version}, this owner speaks {PROTOCOL_VERSION}"),
        );
        return Err(DecodeError {
            envelope: Some(env),
            error: e,
        });
    }
    Ok((env, k, r))
}

/// Decodes and validates a request from an untrusted sender.
pub fn decode_request(bytes: &[u8]) -> std::result::Result<(Envelope, Request), DecodeError> {
    let (env, k, mut r) = decode_envelope(bytes)?;
    let body = (|| -> ReadResult<Request> {
        let req = match k {
            kind::OPEN => Request::Open,
            kind::EXEC => Request::Exec {
                txn: r.opt_id("transaction id")?,
                sql: r.str("sql")?,
            },
            kind::QUERY => Request::Query {
                txn: r.opt_id("transaction id")?,
                sql: r.str("sql")?,
                params: r.params()?,
            },
            kind::PREPARE => Request::Prepare { sql: r.str("sql")? },
            kind::RUN => Request::Run {
                txn: r.opt_id("transaction id")?,
                stmt: r.u32()?,
                params: r.params()?,
            },
            kind::FINALIZE => Request::Finalize { stmt: r.u32()? },
            kind::BATCH => {
                let txn = r.id("transaction id")?;
                let n = r.count(5, "batch statement")?;
                let mut items = Vec::with_capacity(n);
                for _ in 0..n {
                    items.push(BatchItem {
                        sql: r.str("sql")?,
                        params: r.params()?,
                    });
                }
                Request::Batch { txn, items }
            }
            kind::BEGIN => Request::Begin {
                txn: r.id("transaction id")?,
            },
            kind::COMMIT => Request::Commit {
                txn: r.id("transaction id")?,
            },
            kind::ROLLBACK => Request::Rollback {
                txn: r.id("transaction id")?,
            },
            kind::TXN_STATUS => Request::TxnStatus {
                txn: r.id("transaction id")?,
            },
            kind::EXPORT => Request::Export,
            kind::CLOSE => Request::Close,
            kind::IMPORT => Request::Import {
                bytes: r.bytes()?.to_vec(),
            },
            kind::CHECK => Request::Check,
            kind::SYNC => Request::Sync,
            k => return Err(format!("unknown request kind {k:#04x}")),
        };
        r.end()?;
        Ok(req)
    })();
    match body {
        Ok(req) if env.client.is_empty() => Err(DecodeError {
            envelope: None,
            error: WireError::new(
                code::MALFORMED_MESSAGE,
                format!("request {req:?} has an empty client id"),
            ),
        }),
        Ok(req) => Ok((env, req)),
        Err(m) => Err(DecodeError {
            envelope: Some(env),
            error: WireError::new(code::MALFORMED_MESSAGE, m),
        }),
    }
}

/// Decodes and validates a response (used by native tests and tools; the
/// TypeScript client has its own mirror).
pub fn decode_response(bytes: &[u8]) -> std::result::Result<(Envelope, Response), DecodeError> {
    let (env, k, mut r) = decode_envelope(bytes)?;
    let body = (|| -> ReadResult<Response> {
        let resp = match k {
            kind::READY => Response::Ready {
                owner: r.id("owner id")?,
            },
            kind::OPENED => Response::Opened {
                owner: r.id("owner id")?,
            },
            kind::DONE => Response::Done,
            kind::ROWS => Response::Rows(r.result_set()?),
            kind::PREPARED => Response::Prepared {
                stmt: r.u32()?,
                param_count: r.u32()?,
                columns: r.columns()?,
            },
            kind::BATCH_DONE => {
                let n = r.count(24, "result set")?;
                Response::BatchDone((0..n).map(|_| r.result_set()).collect::<ReadResult<_>>()?)
            }
            kind::TXN_STATE => Response::TxnState {
                committed: match r.u8()? {
                    0 => false,
                    1 => true,
                    t => return Err(format!("committed flag {t} is neither 0 nor 1")),
                },
            },
            kind::BYTES => Response::Bytes(r.bytes()?.to_vec()),
            kind::FAILED => Response::Failed(r.error()?),
            kind::CHECKED => {
                let n = r.count(12, "problem")?;
                let mut problems = Vec::with_capacity(n);
                for _ in 0..n {
                    problems.push(CheckProblem {
                        page: r.u64()?,
                        detail: r.str("problem detail")?,
                    });
                }
                Response::Checked(CheckSummary {
                    problems,
                    pages: r.u64()?,
                    trees: r.u64()?,
                    entries: r.u64()?,
                    free_pages: r.u64()?,
                })
            }
            k => return Err(format!("unknown response kind {k:#04x}")),
        };
        r.end()?;
        Ok(resp)
    })();
    body.map(|resp| (env.clone(), resp))
        .map_err(|m| DecodeError {
            envelope: Some(env),
            error: WireError::new(code::MALFORMED_MESSAGE, m),
        })
}

/// Decodes a parameter list on its own (the in-worker API's direct calls
/// pass parameters in this form, without a message around them).
pub fn decode_params(bytes: &[u8]) -> std::result::Result<Params, WireError> {
    let mut r = Reader { buf: bytes, pos: 0 };
    r.params()
        .and_then(|p| r.end().map(|()| p))
        .map_err(|m| WireError::new(code::MALFORMED_MESSAGE, m))
}
