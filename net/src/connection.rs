//! A framed TCP connection: length-delimited frames in both directions.
//!
//! **Design.** Each frame is a 4-byte big-endian length and that many
//! bytes of body (`tokio_util::codec::LengthDelimitedCodec`); the body is
//! one bitcode message (`protocol.rs`). A connection is split in a
//! [`FrameReader`] and a [`FrameWriter`] so that one task can read while
//! another writes. The reader refuses a frame longer than its limit
//! *before* reading its body ([`protocol::MAX_UP_FRAME`] on the server,
//! [`protocol::MAX_DOWN_FRAME`] on the client), so a peer cannot make the
//! other side buffer more than the limit.
//!
//! **Invariants.** Frames are delivered whole and in order, or the
//! connection ends with a [`NetError`]; an oversized length is
//! [`NetError::Oversized`] (a bogus message), never an allocation.

use crate::client_core::ClientError;
use crate::protocol;
use bytes::Bytes;
use futures_util::{SinkExt, StreamExt};
use tokio::net::tcp::{OwnedReadHalf, OwnedWriteHalf};
use tokio::net::TcpStream;
use tokio_util::codec::{FramedRead, FramedWrite, LengthDelimitedCodec};

/// Why a connection ended.
#[derive(Debug, thiserror::Error)]
pub enum NetError {
    /// A socket error.
    #[error("i/o: {0}")]
    Io(#[from] std::io::Error),
    /// The peer announced a frame over the limit.
    #[error("oversized frame (limit {0} bytes)")]
    Oversized(usize),
    /// The peer closed the connection.
    #[error("connection closed")]
    Eof,
    /// The client session ended.
    #[error(transparent)]
    Client(#[from] ClientError),
    /// No answer in time.
    #[error("timed out: {0}")]
    Timeout(&'static str),
}

fn codec(max: usize) -> LengthDelimitedCodec {
    LengthDelimitedCodec::builder().length_field_length(4).max_frame_length(max).new_codec()
}

/// The reading half of a connection.
pub struct FrameReader {
    inner: FramedRead<OwnedReadHalf, LengthDelimitedCodec>,
    max: usize,
}

/// The writing half of a connection.
pub struct FrameWriter {
    inner: FramedWrite<OwnedWriteHalf, LengthDelimitedCodec>,
}

/// Splits `stream` into framed halves; frames read are at most `max_read`
/// bytes.
pub fn split(stream: TcpStream, max_read: usize) -> (FrameReader, FrameWriter) {
    let _ = stream.set_nodelay(true);
    let (r, w) = stream.into_split();
    let reader = FrameReader { inner: FramedRead::new(r, codec(max_read)), max: max_read };
    // The writer's limit is the largest frame this side ever sends.
    let writer = FrameWriter { inner: FramedWrite::new(w, codec(protocol::MAX_DOWN_FRAME)) };
    (reader, writer)
}

impl FrameReader {
    /// The next frame's body; [`NetError::Eof`] at a clean end.
    pub async fn read(&mut self) -> Result<bytes::BytesMut, NetError> {
        match self.inner.next().await {
            Some(Ok(b)) => Ok(b),
            Some(Err(e)) if e.kind() == std::io::ErrorKind::InvalidData => {
                Err(NetError::Oversized(self.max))
            }
            Some(Err(e)) => Err(NetError::Io(e)),
            None => Err(NetError::Eof),
        }
    }
}

impl FrameWriter {
    /// Sends one frame (buffered; see [`FrameWriter::flush`]).
    pub async fn feed(&mut self, body: Vec<u8>) -> Result<(), NetError> {
        Ok(self.inner.feed(Bytes::from(body)).await?)
    }

    /// Sends one frame and flushes.
    pub async fn send(&mut self, body: Vec<u8>) -> Result<(), NetError> {
        Ok(self.inner.send(Bytes::from(body)).await?)
    }

    /// Flushes what was fed.
    pub async fn flush(&mut self) -> Result<(), NetError> {
        Ok(SinkExt::<Bytes>::flush(&mut self.inner).await?)
    }
}
