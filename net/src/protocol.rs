//! The messages of the Luprex protocol and their byte encoding.
//!
//! **Design.** A connection carries two ordered streams of *messages*:
//! [`Up`] from a client to the server and [`Down`] from the server to a
//! client. Each message is one *frame* on the wire (`connection.rs` puts a
//! 4-byte big-endian length in front); its body is the message encoded with
//! bitcode (serde), the format difference transmission chose for its
//! frames (issue 12): one format for the whole wire. A view frame
//! (`luprex_engine::diff::Frame`) travels as opaque bytes inside
//! [`Batch::view`], encoded by the diff module itself.
//!
//! The down stream is one ordered sequence: a [`Down::Welcome`], then one
//! [`Down::Batch`] per server tick. A batch holds, in the order both
//! synchronous models apply them: the tick marker (the models call
//! `World::tick`), the acknowledgements of this client's commands the
//! master ran in that tick (the models run the ones that executed), and
//! the view frame (difference transmission). Because acknowledgements and
//! frames travel in the same stream, the client-synchronous model is
//! always equal to some past state of its server-synchronous twin (seed
//! 002's "consistent group": the whole view is one replication group).
//!
//! **Invariants.**
//! * [`decode_up`] and [`decode_down`] never panic: any byte string is
//!   either a message or a [`DecodeError`] (a *bogus* message).
//! * A decoded message is within the limits below ([`Up::check`]): names,
//!   secrets, function names, argument counts and strings are bounded, and
//!   coordinates finite, so no later stage needs to check sizes.
//! * [`PROTOCOL_VERSION`] changes whenever an encoding changes.

use serde::{Deserialize, Serialize};

/// The protocol version the handshake carries; a mismatch is refused.
pub const PROTOCOL_VERSION: u32 = 1;
/// The largest frame a client may send (bytes of the body).
pub const MAX_UP_FRAME: usize = 64 * 1024;
/// The largest frame the server sends (a late join's first view frame
/// carries the whole source database).
pub const MAX_DOWN_FRAME: usize = 16 * 1024 * 1024;
/// The longest secret, in bytes.
pub const MAX_SECRET: usize = 256;
/// The longest function name of a command, in bytes.
pub const MAX_FUNCTION: usize = 128;
/// The most arguments of a command (the engine's limit).
pub const MAX_ARGS: usize = 32;
/// The longest string argument, in bytes.
pub const MAX_ARG_STR: usize = 4096;

/// A plain value on the wire: the engine's [`Plain`] itself (serde), so a
/// command's arguments reach `World::invoke` as they are.
pub use luprex_engine::Plain as Arg;

/// A command of a player (seed 003): what the client predicts and the
/// master runs.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum Command {
    /// `class.function(target, args...)` (`World::invoke`).
    Invoke {
        /// The target tangible.
        target: u64,
        /// A function of the target's class marked by `permit_invoke`.
        function: String,
        /// Its arguments.
        args: Vec<Arg>,
    },
    /// The built-in walk command (`World::walk`).
    Walk {
        /// Where to.
        to: [f64; 3],
    },
}

/// The handshake: the first message of a connection.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Hello {
    /// [`PROTOCOL_VERSION`] of the client.
    pub version: u32,
    /// The player's name (the engine's rules: 1 to 64 bytes, no control
    /// characters).
    pub name: String,
    /// The player's secret: registers the name on first join, must match
    /// afterwards.
    pub secret: String,
    /// The hash of the source database the client holds from an earlier
    /// session ([`crate::view::source_hash`]); 0 if none. If it equals the
    /// master's, the sources are not sent again.
    pub sources: u128,
}

/// A message from a client to the server.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum Up {
    /// The handshake (first message, once).
    Hello(Hello),
    /// A command with its client sequence number (strictly increasing).
    Command {
        /// The client sequence number.
        seq: u64,
        /// The command.
        cmd: Command,
    },
    /// The client leaves.
    Bye,
}

/// How the master ran a command.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Outcome {
    /// It ran (its thread started; the synchronous models run it too).
    Executed,
    /// It was impossible (refused, a script error, throttled): the error
    /// text. The synchronous models do not run it.
    Failed(String),
}

/// The acknowledgement of one command.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Ack {
    /// The command's client sequence number.
    pub seq: u64,
    /// What happened on the master.
    pub outcome: Outcome,
}

/// Everything one server tick means to one client, in application order.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Batch {
    /// The master's tick after this batch (the synchronous models tick
    /// once, to this tick, before the acknowledgements).
    pub tick: i64,
    /// This client's commands the master ran in this tick, in order.
    pub acks: Vec<Ack>,
    /// The view frame (difference transmission), `diff::Frame::encode`d;
    /// empty in the ticks without one (`ServerConfig::frame_every`).
    pub view: Vec<u8>,
    /// What the master printed to this player in this tick.
    pub prints: String,
    /// The server-synchronous model's state hash after this batch, sent
    /// every N acknowledgements for desync detection.
    pub check: Option<u128>,
}

/// A message from the server to a client.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum Down {
    /// The handshake succeeded.
    Welcome {
        /// The server's [`PROTOCOL_VERSION`].
        version: u32,
        /// The player's tangible.
        player: u64,
        /// The master's tick now.
        tick: i64,
        /// Ticks per second.
        tick_hz: u32,
        /// The hash of the master's source database.
        sources: u128,
        /// Whether the client's cached sources are used (the hashes
        /// matched): it loads them into its new model itself.
        cached: bool,
        /// The radius of the player's view.
        radius: f64,
        /// The empty synchronous model at the master's tick
        /// (`World::save`): both twins start from these bytes, so a late
        /// join costs no replay of the clock.
        blank: Vec<u8>,
    },
    /// One server tick.
    Batch(Batch),
    /// The server closes the connection (refused handshake, bogus
    /// message, too far behind, shutdown): why.
    Closing {
        /// The reason.
        reason: String,
    },
}

/// Why bytes are not a message (a bogus message).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum DecodeError {
    /// Not a message of this protocol (malformed, unknown kind, trailing
    /// bytes).
    #[error("malformed message: {0}")]
    Malformed(String),
    /// Larger than the frame limit.
    #[error("oversized frame: {0} bytes (limit {1})")]
    Oversized(usize, usize),
    /// Well formed but out of bounds.
    #[error("message out of bounds: {0}")]
    OutOfBounds(String),
}

fn decode<T: for<'a> Deserialize<'a>>(bytes: &[u8], limit: usize) -> Result<T, DecodeError> {
    if bytes.len() > limit {
        return Err(DecodeError::Oversized(bytes.len(), limit));
    }
    bitcode::deserialize(bytes).map_err(|e| DecodeError::Malformed(e.to_string()))
}

/// The bytes of a message (bitcode).
pub fn encode<T: Serialize>(msg: &T) -> Vec<u8> {
    // Serializing these types to a Vec cannot fail (no maps with
    // non-string keys, no unsupported types).
    bitcode::serialize(msg).unwrap_or_default()
}

/// Decodes and bounds-checks a client's message.
pub fn decode_up(bytes: &[u8]) -> Result<Up, DecodeError> {
    let up: Up = decode(bytes, MAX_UP_FRAME)?;
    up.check()?;
    Ok(up)
}

/// Decodes a server's message.
pub fn decode_down(bytes: &[u8]) -> Result<Down, DecodeError> {
    decode(bytes, MAX_DOWN_FRAME)
}

impl Up {
    /// Checks the limits of the module docs.
    pub fn check(&self) -> Result<(), DecodeError> {
        let bad = |m: String| Err(DecodeError::OutOfBounds(m));
        match self {
            Up::Hello(h) if h.secret.len() > MAX_SECRET => bad("secret too long".into()),
            Up::Hello(h) if h.name.len() > luprex_engine::MAX_NAME => bad("name too long".into()),
            Up::Command { cmd: Command::Walk { to }, .. } if !to.iter().all(|c| c.is_finite()) => {
                bad("walk coordinate is not finite".into())
            }
            Up::Command { cmd: Command::Invoke { function, args, .. }, .. } => {
                if function.len() > MAX_FUNCTION {
                    return bad("function name too long".into());
                }
                if args.len() > MAX_ARGS {
                    return bad(format!("{} arguments (limit {MAX_ARGS})", args.len()));
                }
                if args.iter().any(|a| matches!(a, Arg::Str(s) if s.len() > MAX_ARG_STR)) {
                    return bad("string argument too long".into());
                }
                Ok(())
            }
            _ => Ok(()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trip_and_garbage() {
        let up = Up::Command {
            seq: 7,
            cmd: Command::Invoke { target: 3, function: "push".into(), args: vec![Arg::Int(1)] },
        };
        assert_eq!(decode_up(&encode(&up)).unwrap(), up);
        assert!(matches!(decode_up(&[0xff, 0xff, 0xff]), Err(DecodeError::Malformed(_))));
        let b = encode(&up);
        assert!(matches!(decode_up(&b[..b.len() - 1]), Err(DecodeError::Malformed(_))));
        let big = vec![0u8; MAX_UP_FRAME + 1];
        assert!(matches!(decode_up(&big), Err(DecodeError::Oversized(..))));
        let inf = Up::Command { seq: 1, cmd: Command::Walk { to: [f64::INFINITY, 0.0, 0.0] } };
        assert!(matches!(decode_up(&encode(&inf)), Err(DecodeError::OutOfBounds(_))));
    }
}
