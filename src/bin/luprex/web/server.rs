//! The web server: the page's static files and its WebSocket, on one port.
//!
//! It runs on its own thread with its own current-thread tokio runtime
//! (axum), so that nothing a page does — a slow connection, a flood of
//! messages — can stall the client loop, which owns the World on the
//! session's thread. The two sides meet only through two channels:
//!
//! * a `watch` of the latest [`Published`] frame (the `state` message and
//!   the print buffer's tail, as ready-made JSON text): the client loop
//!   replaces it each frame without ever waiting; each page's task sends
//!   what changed since it last sent, so a slow page skips frames instead
//!   of queueing them (the print tail is whole in every `prints` message,
//!   so nothing is lost by skipping);
//! * a bounded `mpsc` of validated [`PageMsg`]s to the client loop: a
//!   message is parsed and validated here (`protocol.rs`); a malformed
//!   one, and one arriving while the queue is full, is refused with a
//!   logged reason (`tracing::warn`) and an `error` message to its page,
//!   and never reaches the client.
//!
//! Routes: `/` (index.html), `/app.js`, `/style.css`, embedded in the
//! binary with `include_str!` (no build step, no files to install), and
//! `/ws`, the WebSocket. A WebSocket request whose `Origin` is not this
//! server (another site's page in the same browser) is refused (403).

use super::protocol::{self, PageMsg};
use axum::extract::ws::{Message, Utf8Bytes, WebSocket, WebSocketUpgrade};
use axum::extract::{ConnectInfo, State};
use axum::http::{header, HeaderMap, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::Router;
use std::net::SocketAddr;
use tokio::sync::{mpsc, oneshot, watch};

const INDEX: &str = include_str!("static/index.html");
const APP: &str = include_str!("static/app.js");
const STYLE: &str = include_str!("static/style.css");

/// How many page messages may wait for the client loop.
pub const INBOX: usize = 64;

/// What the client loop publishes for the pages: ready-made messages,
/// each with the serial number of its last change.
#[derive(Clone, Debug, Default)]
pub struct Published {
    pub state: Option<(u64, Utf8Bytes)>,
    pub prints: Option<(u64, Utf8Bytes)>,
}

#[derive(Clone)]
struct Shared {
    frames: watch::Receiver<Published>,
    inbox: mpsc::Sender<PageMsg>,
}

/// A running web server.
pub struct WebServer {
    /// Where it listens.
    pub addr: SocketAddr,
    stop: Option<oneshot::Sender<()>>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl WebServer {
    /// Serves on `listener` (already bound, so that the caller knows the
    /// address before the page is asked for) from a thread of its own.
    pub fn spawn(
        listener: std::net::TcpListener,
        frames: watch::Receiver<Published>,
        inbox: mpsc::Sender<PageMsg>,
    ) -> std::io::Result<WebServer> {
        let addr = listener.local_addr()?;
        listener.set_nonblocking(true)?;
        let (stop, stopped) = oneshot::channel::<()>();
        let rt = tokio::runtime::Builder::new_current_thread().enable_all().build()?;
        let thread = std::thread::Builder::new().name("luprex-web".into()).spawn(move || {
            rt.block_on(async move {
                let listener = match tokio::net::TcpListener::from_std(listener) {
                    Ok(l) => l,
                    Err(e) => return tracing::error!(error = %e, "web listener"),
                };
                let app = router(Shared { frames, inbox });
                let serve =
                    axum::serve(listener, app.into_make_service_with_connect_info::<SocketAddr>())
                        .with_graceful_shutdown(async {
                            let _ = stopped.await;
                        });
                if let Err(e) = serve.await {
                    tracing::error!(error = %e, "web server");
                }
            })
        })?;
        Ok(WebServer { addr, stop: Some(stop), thread: Some(thread) })
    }

    /// Stops serving (open WebSockets end when the client loop's
    /// publisher is dropped) and waits for the thread.
    pub fn shutdown(mut self) {
        self.stop_now();
    }

    fn stop_now(&mut self) {
        if let Some(s) = self.stop.take() {
            let _ = s.send(());
        }
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

impl Drop for WebServer {
    fn drop(&mut self) {
        self.stop_now();
    }
}

fn router(shared: Shared) -> Router {
    Router::new()
        .route("/", get(|| async { file("text/html; charset=utf-8", INDEX) }))
        .route("/index.html", get(|| async { file("text/html; charset=utf-8", INDEX) }))
        .route("/app.js", get(|| async { file("text/javascript; charset=utf-8", APP) }))
        .route("/style.css", get(|| async { file("text/css; charset=utf-8", STYLE) }))
        .route("/ws", get(upgrade))
        .with_state(shared)
}

fn file(kind: &'static str, body: &'static str) -> Response {
    ([(header::CONTENT_TYPE, kind), (header::CACHE_CONTROL, "no-cache")], body).into_response()
}

async fn upgrade(
    ws: WebSocketUpgrade,
    ConnectInfo(peer): ConnectInfo<SocketAddr>,
    State(shared): State<Shared>,
    headers: HeaderMap,
) -> Response {
    let text = |name| headers.get(name).and_then(|v: &HeaderValue| v.to_str().ok());
    if !same_origin(text(header::ORIGIN), text(header::HOST)) {
        let origin = text(header::ORIGIN).unwrap_or("?");
        tracing::warn!(%peer, %origin, "refused a WebSocket from another site's page");
        return (StatusCode::FORBIDDEN, "this page's WebSocket is for its own origin")
            .into_response();
    }
    // Messages over the limit are still read whole (up to 4x), so that
    // the page is told why instead of the socket being cut.
    ws.max_message_size(protocol::MAX_MESSAGE * 4)
        .on_upgrade(move |socket| page(socket, peer, shared))
}

/// Whether a WebSocket request comes from the page this server served
/// (or from no page at all: a tool sends no `Origin`). A page of another
/// site open in the same browser could otherwise play for the player
/// (cross-site WebSocket hijacking): browsers always send `Origin`.
fn same_origin(origin: Option<&str>, host: Option<&str>) -> bool {
    let Some(origin) = origin else { return true };
    let authority = origin.strip_prefix("http://").or_else(|| origin.strip_prefix("https://"));
    matches!((authority, host), (Some(a), Some(h)) if a.eq_ignore_ascii_case(h))
}

/// One page's WebSocket: frames out, validated messages in.
async fn page(mut socket: WebSocket, peer: SocketAddr, mut shared: Shared) {
    tracing::info!(%peer, "a page connected");
    let (mut state_sent, mut prints_sent) = (None, None);
    loop {
        let frame = shared.frames.borrow_and_update().clone();
        for (serial, text, sent) in [
            (frame.state.as_ref().map(|s| s.0), frame.state.map(|s| s.1), &mut state_sent),
            (frame.prints.as_ref().map(|p| p.0), frame.prints.map(|p| p.1), &mut prints_sent),
        ] {
            if let (Some(serial), Some(text)) = (serial, text) {
                if *sent != Some(serial) {
                    *sent = Some(serial);
                    if socket.send(Message::Text(text)).await.is_err() {
                        return;
                    }
                }
            }
        }
        tokio::select! {
            changed = shared.frames.changed() => {
                if changed.is_err() {
                    break; // the client loop ended
                }
            }
            msg = socket.recv() => {
                let Some(Ok(msg)) = msg else { break };
                if let Some(refusal) = receive(msg, peer, &shared.inbox) {
                    let text = Utf8Bytes::from(protocol::error(&refusal));
                    if socket.send(Message::Text(text)).await.is_err() {
                        break;
                    }
                }
            }
        }
    }
    tracing::info!(%peer, "a page left");
}

/// Handles one message from a page: `Some(reason)` if it was refused.
fn receive(msg: Message, peer: SocketAddr, inbox: &mpsc::Sender<PageMsg>) -> Option<String> {
    let reason = match msg {
        Message::Text(text) => match protocol::parse(text.as_str()) {
            Ok(m) => match inbox.try_send(m) {
                Ok(()) => return None,
                Err(mpsc::error::TrySendError::Full(_)) => "too many messages: try again".into(),
                Err(mpsc::error::TrySendError::Closed(_)) => "the client has stopped".into(),
            },
            Err(why) => why,
        },
        Message::Binary(_) => "binary messages are not understood".into(),
        Message::Ping(_) | Message::Pong(_) | Message::Close(_) => return None,
    };
    tracing::warn!(%peer, %reason, "refused a message from the page");
    Some(reason)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_the_servers_own_page_may_open_the_websocket() {
        let host = Some("127.0.0.1:8080");
        assert!(same_origin(Some("http://127.0.0.1:8080"), host));
        assert!(same_origin(Some("https://127.0.0.1:8080"), host));
        assert!(same_origin(None, host), "not a browser");
        assert!(!same_origin(Some("http://evil.example"), host));
        assert!(!same_origin(Some("http://127.0.0.1:8081"), host));
        assert!(!same_origin(Some("null"), host));
        assert!(!same_origin(Some("http://127.0.0.1:8080"), None));
    }

    #[test]
    fn refusals_are_reasons_and_accepted_messages_reach_the_inbox() {
        let peer: SocketAddr = "127.0.0.1:1".parse().unwrap();
        let (tx, mut rx) = mpsc::channel(2);
        let text = |s: &str| Message::Text(Utf8Bytes::from(s.to_owned()));
        assert_eq!(receive(text(r#"{"t":"line","text":"hi"}"#), peer, &tx), None);
        assert_eq!(rx.try_recv().unwrap(), PageMsg::Line("hi".into()));
        let why = receive(text("{nonsense"), peer, &tx).unwrap();
        assert!(why.contains("not JSON"), "{why}");
        let why = receive(Message::Binary(vec![1, 2].into()), peer, &tx).unwrap();
        assert!(why.contains("binary"), "{why}");
        assert!(rx.try_recv().is_err(), "nothing refused reached the client");
        // A full inbox refuses instead of waiting.
        for _ in 0..2 {
            assert_eq!(receive(text(r#"{"t":"walk","x":1,"y":2}"#), peer, &tx), None);
        }
        let why = receive(text(r#"{"t":"walk","x":1,"y":2}"#), peer, &tx).unwrap();
        assert!(why.contains("too many"), "{why}");
    }
}
