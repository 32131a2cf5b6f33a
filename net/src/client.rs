//! The tokio client: a [`ClientCore`] on a framed TCP connection.
//!
//! **Design.** [`Client`] owns the core and both halves of the connection
//! and is driven by its owner: [`Client::command`] predicts a command and
//! sends it at once; [`Client::pump`] reads and applies the server's
//! frames for a while (a game's frame loop would call it every frame). The
//! core holds a World, which is not `Send`, so a client lives on one
//! thread (a current-thread runtime or a `LocalSet`).
//!
//! **Invariants.** Frames are applied in arrival order; the first error
//! (a bogus frame, a closed connection, `Closing` from the server) ends the
//! client and is returned from then on.

use crate::client_core::{ClientCore, ClientError};
use crate::connection::{self, FrameReader, FrameWriter, NetError};
use crate::protocol::{self, Command};
use std::net::SocketAddr;
use std::time::Duration;
use tokio::net::TcpStream;

/// A connected client.
pub struct Client {
    core: ClientCore,
    reader: FrameReader,
    writer: FrameWriter,
}

impl Client {
    /// Connects `core` to `addr` and waits (up to `wait`) for the
    /// server's welcome.
    pub async fn connect(
        addr: SocketAddr,
        core: ClientCore,
        wait: Duration,
    ) -> Result<Client, NetError> {
        let stream = TcpStream::connect(addr).await?;
        let (reader, writer) = connection::split(stream, protocol::MAX_DOWN_FRAME);
        let mut c = Client { core, reader, writer };
        c.flush().await?;
        let welcome = async {
            while !c.core.is_live() {
                let b = c.reader.read().await?;
                c.core.receive(&b)?;
            }
            Ok::<(), NetError>(())
        };
        tokio::time::timeout(wait, welcome).await.map_err(|_| NetError::Timeout("welcome"))??;
        Ok(c)
    }

    /// The core (view, stats, events, prints).
    pub fn core(&mut self) -> &mut ClientCore {
        &mut self.core
    }

    /// Sends what the core queued.
    pub async fn flush(&mut self) -> Result<(), NetError> {
        for b in self.core.take_outbox() {
            self.writer.feed(b).await?;
        }
        self.writer.flush().await
    }

    /// Predicts and sends `cmd`; its sequence number.
    pub async fn command(&mut self, cmd: Command) -> Result<u64, NetError> {
        let seq = self.core.command(cmd)?;
        self.flush().await?;
        Ok(seq)
    }

    /// Reads and applies frames for `d`.
    pub async fn pump(&mut self, d: Duration) -> Result<(), NetError> {
        let deadline = tokio::time::Instant::now() + d;
        loop {
            match tokio::time::timeout_at(deadline, self.reader.read()).await {
                Err(_) => return Ok(()),
                Ok(r) => self.core.receive(&r?)?,
            }
        }
    }

    /// Sends raw bytes as one frame (tests: a misbehaving client).
    pub async fn send_raw(&mut self, bytes: Vec<u8>) -> Result<(), NetError> {
        self.writer.send(bytes).await
    }

    /// Says goodbye and closes.
    pub async fn bye(mut self) -> Result<(), NetError> {
        self.core.bye();
        self.flush().await
    }

    /// Why the session ended, if it did.
    pub fn closed(&self) -> Option<ClientError> {
        self.core.closed().map(|r| ClientError::Closed(r.to_owned()))
    }
}
