//! luprex-net: predictive re-execution over the network (seed 003).
//!
//! The crate is a *sans-IO core* and two drivers:
//!
//! | module            | what                                                      |
//! |-------------------|-----------------------------------------------------------|
//! | [`protocol`]      | the messages, their bitcode encoding, the limits          |
//! | [`view`]          | source hashes and caches, view summaries (tests, tools)   |
//! | [`auth`]          | players' names and argon2-hashed secrets                  |
//! | [`server_core`]   | master + one server-synchronous World per session, tick   |
//! | [`client_core`]   | client-synchronous World + predictions (snapshot/rollback)|
//! | [`sim`]           | a deterministic in-process network (seeded latency)       |
//! | [`connection`]    | a framed TCP connection (length-delimited frames)         |
//! | [`server`]        | the tokio server: tick thread, accept loop, shutdown      |
//! | [`client`]        | the tokio client                                          |
//!
//! The cores never touch a socket or a clock; the drivers move bytes and
//! call `tick` at the configured rate. `docs/PREDICTION.md` says what runs
//! in which model and when, and why the synchronous twins stay
//! hash-equal.
//!
//! A World is not `Send`: the server keeps every World (the master and
//! the synchronous models) on its tick thread; connection tasks talk to it
//! over bounded channels.

pub mod auth;
pub mod client;
pub mod client_core;
pub mod connection;
pub mod protocol;
pub mod server;
pub mod server_core;
pub mod sim;
pub mod view;

pub use auth::{AuthError, HashCost, Registry};
pub use client_core::{ClientCore, ClientError, ClientEvent, ClientStats};
pub use protocol::{Arg, Command, Outcome};
pub use server_core::{ServerConfig, ServerCore, ServerStats, SessionId};
