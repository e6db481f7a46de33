//! Parser tests: hand-written cases per construct (`cases`), the
//! sqllogictest corpus (`corpus`), rendering round trips (`roundtrip`), and
//! property tests on arbitrary input (`props`).

mod corpus;
