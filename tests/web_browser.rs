//! The web view as a person uses it: a real browser (Debian's headless
//! `chromium`, driven through `chromedriver` with the WebDriver client
//! `fantoccini`) on the page that `luprex play --web` and `luprex connect
//! --web` serve, on a scratch copy of the demo world.
//!
//! One scenario, because each step needs the previous one: alice starts
//! `play --web` (the server and her web client; the addresses are read
//! from its stdout), bob joins with `connect --web`; a browser session
//! opens each page. Alice clicks on the map three units east of herself:
//! the map draws her moving through intermediate points (interpolated
//! along her animation queue, not jumping), her client's World has her at
//! the point once the command is acknowledged (no pending prediction),
//! and bob's page — fed by bob's client from the server — shows her
//! there too. Alice types a chat line; bob's print buffer shows it. A
//! malformed WebSocket message is refused and reported to the page, and
//! the client keeps working; another site's page may not open the
//! WebSocket. A screenshot of alice's page is saved as
//! `target/web-screenshot.png`.
//!
//! chromium and chromedriver are required: the test installs them when
//! they are missing (`support/packages.rs`, as `.ci/run` does), and fails
//! saying so if it cannot.

#[path = "support/packages.rs"]
mod packages;
#[path = "support/scratch.rs"]
mod scratch;

use fantoccini::actions::{InputSource, MouseActions, PointerAction, MOUSE_BUTTON_LEFT};
use fantoccini::{Client, ClientBuilder, Locator};
use serde_json::{json, Value};
use std::io::{BufRead, BufReader};
use std::net::TcpListener;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

const WAIT: Duration = Duration::from_secs(15);
const CHROMEDRIVER: &str = "/usr/bin/chromedriver";
const CHROMIUM: &str = "/usr/bin/chromium";
/// The map's scale at load (app.js `scale`): pixels per world unit.
const SCALE: f64 = 32.0;

/// A child process killed when dropped.
struct Proc(Child);

impl Drop for Proc {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// Starts `luprex ARGS` with stdout piped; its lines come on the channel.
fn luprex(args: &[&str]) -> (Proc, mpsc::Receiver<String>) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_luprex"))
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .spawn()
        .expect("starting luprex");
    let out = child.stdout.take().unwrap();
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(out).lines().map_while(Result::ok) {
            if tx.send(line).is_err() {
                return;
            }
        }
    });
    (Proc(child), rx)
}

/// The rest of the first stdout line that starts with `prefix`.
fn line_after(rx: &mpsc::Receiver<String>, prefix: &str) -> String {
    let deadline = Instant::now() + WAIT;
    let mut seen = Vec::new();
    while let Some(left) = deadline.checked_duration_since(Instant::now()) {
        match rx.recv_timeout(left) {
            Ok(line) => match line.strip_prefix(prefix) {
                Some(rest) => return rest.trim().to_owned(),
                None => seen.push(line),
            },
            Err(_) => break,
        }
    }
    panic!("no line starting with {prefix:?}; stdout was:\n{}", seen.join("\n"));
}

fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port()
}

/// Starts chromedriver on a free port; its URL.
fn chromedriver() -> (Proc, String) {
    let port = free_port();
    let child = Command::new(CHROMEDRIVER)
        .arg(format!("--port={port}"))
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("starting chromedriver");
    let deadline = Instant::now() + WAIT;
    while std::net::TcpStream::connect(("127.0.0.1", port)).is_err() {
        assert!(Instant::now() < deadline, "chromedriver did not listen on {port}");
        std::thread::sleep(Duration::from_millis(50));
    }
    (Proc(child), format!("http://127.0.0.1:{port}"))
}

/// A new headless chromium session with a fresh profile.
async fn browser(driver: &str, profile: &Path) -> Client {
    let args = [
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-quic",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--disable-dev-shm-usage",
        "--window-size=1000,680",
        &format!("--user-data-dir={}", profile.display()),
    ];
    let caps = json!({ "goog:chromeOptions": { "binary": CHROMIUM, "args": args } });
    let Value::Object(caps) = caps else { unreachable!() };
    ClientBuilder::new(hyper_util::client::legacy::connect::HttpConnector::new())
        .capabilities(caps)
        .connect(driver)
        .await
        .expect("a chromium session")
}

/// Evaluates `expr` in the page until `ok` accepts it; the value.
async fn wait_js(c: &Client, what: &str, expr: &str, ok: impl Fn(&Value) -> bool) -> Value {
    let deadline = Instant::now() + WAIT;
    let script = format!("return ({expr});");
    let mut last = Value::Null;
    while Instant::now() < deadline {
        last = c.execute(&script, vec![]).await.expect("executing a script");
        if ok(&last) {
            return last;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    panic!("{what}: never so; last value {last}");
}

fn num(v: &Value) -> Option<f64> {
    v.as_str()?.parse().ok()
}

/// The HTTP status of a WebSocket upgrade request to `url`'s `/ws` sent
/// as from a page of `origin`.
fn upgrade_status(url: &str, origin: &str) -> String {
    use std::io::{Read, Write};
    let host = url.trim_start_matches("http://").trim_end_matches('/');
    let mut s = std::net::TcpStream::connect(host).unwrap();
    s.set_read_timeout(Some(WAIT)).unwrap();
    let req = format!(
        "GET /ws HTTP/1.1\r\nHost: {host}\r\nOrigin: {origin}\r\nConnection: Upgrade\r\n\
         Upgrade: websocket\r\nSec-WebSocket-Version: 13\r\n\
         Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\r\n"
    );
    s.write_all(req.as_bytes()).unwrap();
    let mut buf = [0u8; 64];
    let n = s.read(&mut buf).unwrap();
    let head = String::from_utf8_lossy(&buf[..n]).into_owned();
    head.split_whitespace().nth(1).unwrap_or_default().to_owned()
}

/// The player's position in the client's World (the page's status bar).
const WORLD_POS: &str = "[document.getElementById('status').dataset.worldX, \
                         document.getElementById('status').dataset.worldY, \
                         document.getElementById('status').dataset.pending]";

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn click_to_walk_chat_and_a_second_player_in_a_real_browser() {
    packages::ensure(&[(CHROMEDRIVER, "chromium-driver"), (CHROMIUM, "chromium")])
        .unwrap_or_else(|e| panic!("{e}"));
    let dir = scratch::scratch_world("web");
    let d = dir.display().to_string();
    let (alice, alice_out) = luprex(&["play", &d, "--name", "alice", "--web", "127.0.0.1:0"]);
    let game = line_after(&alice_out, "listening on ");
    let alice_url = line_after(&alice_out, "web view on ");
    let (bob, bob_out) = luprex(&["connect", &game, "--name", "bob", "--web", "127.0.0.1:0"]);
    let bob_url = line_after(&bob_out, "web view on ");

    let (_driver, driver) = chromedriver();
    let profiles = std::env::temp_dir().join(format!("luprex-web-profiles-{}", std::process::id()));
    let a = browser(&driver, &profiles.join("a")).await;
    let b = browser(&driver, &profiles.join("b")).await;
    a.goto(&alice_url).await.unwrap();
    b.goto(&bob_url).await.unwrap();

    // Both pages show their player in the world.
    let ready = |v: &Value| v[0].is_string() && v[2] == "0";
    let start = wait_js(&a, "alice in the world", WORLD_POS, ready).await;
    let (x0, y0) = (num(&start[0]).unwrap(), num(&start[1]).unwrap());
    wait_js(&b, "bob in the world", WORLD_POS, ready).await;
    let alice_id = a.execute("return document.body.dataset.player", vec![]).await.unwrap();
    let alice_id = alice_id.as_str().expect("data-player").to_owned();
    let shown = a.find(Locator::Css("#prints")).await.unwrap().text().await.unwrap();
    assert!(shown.contains("Welcome to Emberfield"), "alice's prints:\n{shown}");

    // Click to walk: three units east of alice on her map.
    a.execute("window.trail = []; setInterval(() => window.trail.push(Number(document.getElementById('map').dataset.playerX)), 5)", vec![])
        .await
        .unwrap();
    let map = a.find(Locator::Id("map")).await.unwrap();
    let click = MouseActions::new("mouse".into())
        .then(PointerAction::MoveToElement {
            element: map.clone(),
            duration: None,
            x: 3.0 * SCALE,
            y: 0.0,
        })
        .then(PointerAction::Down { button: MOUSE_BUTTON_LEFT })
        .then(PointerAction::Up { button: MOUSE_BUTTON_LEFT });
    a.perform_actions(click).await.unwrap();
    let (x1, y1) = (x0.round() + 3.0, y0.round());
    // In alice's World, acknowledged by the server (nothing pending).
    let at_target = |v: &Value| num(&v[0]) == Some(x1) && num(&v[1]) == Some(y1) && v[2] == "0";
    wait_js(&a, "alice's World has her at the click", WORLD_POS, at_target).await;
    // On her map, after gliding through points between the two.
    let drawn = "[document.getElementById('map').dataset.playerX, \
                 document.getElementById('map').dataset.playerY]";
    let settled = |v: &Value| {
        num(&v[0]).is_some_and(|x| (x - x1).abs() < 0.01)
            && num(&v[1]).is_some_and(|y| (y - y1).abs() < 0.01)
    };
    wait_js(&a, "alice's map draws her at the click", drawn, settled).await;
    let trail = a.execute("return window.trail", vec![]).await.unwrap();
    let between: Vec<f64> = trail
        .as_array()
        .unwrap()
        .iter()
        .filter_map(Value::as_f64)
        .filter(|x| *x > x0 + 0.05 && *x < x1 - 0.05 && (x - x.round()).abs() > 0.01)
        .collect();
    assert!(between.len() >= 2, "the map jumped instead of animating: {trail}");
    eprintln!("the map drew alice at {} points between {x0} and {x1}", between.len());
    // In bob's client, which knows only what the server sent it.
    let alice_on_bob = format!(
        "(e => e && [e.dataset.x, e.dataset.y])(document.querySelector('#nearby li[data-id=\"{alice_id}\"]'))"
    );
    let there = |v: &Value| num(&v[0]) == Some(x1) && num(&v[1]) == Some(y1);
    wait_js(&b, "bob's page shows alice at the click", &alice_on_bob, there).await;
    let row = format!("document.querySelector('#nearby li[data-id=\"{alice_id}\"]').textContent");
    let row = b.execute(&format!("return {row}"), vec![]).await.unwrap();
    assert!(row.as_str().is_some_and(|s| s.contains("player alice")), "bob's row of alice: {row}");

    // Chat: typed on alice's command line, shown in bob's print buffer.
    let cmd = a.find(Locator::Id("cmd")).await.unwrap();
    cmd.send_keys("hello from alice").await.unwrap();
    a.find(Locator::Css("#cmdform button")).await.unwrap().click().await.unwrap();
    let prints = "document.getElementById('prints').textContent";
    wait_js(&b, "bob hears alice", prints, |v| {
        v.as_str().is_some_and(|s| s.contains("alice: hello from alice"))
    })
    .await;
    wait_js(&a, "alice sees her line", prints, |v| {
        v.as_str().is_some_and(|s| s.contains("you: hello from alice"))
    })
    .await;

    // An action button of the nearby list: alice's own /look.
    let look = format!("#nearby li[data-id=\"{alice_id}\"] button[data-action=\"look\"]");
    a.find(Locator::Css(&look)).await.unwrap().click().await.unwrap();
    wait_js(&a, "the look button answers", prints, |v| {
        v.as_str().is_some_and(|s| s.contains("Around you:") || s.contains("Nothing but grass"))
    })
    .await;

    // The legend lists the demo world's classes around alice.
    let legend = a.find(Locator::Id("legend")).await.unwrap().text().await.unwrap();
    assert!(legend.contains("player") && legend.contains("workbench"), "legend:\n{legend}");

    let size = a.execute("return JSON.stringify(state).length", vec![]).await.unwrap();
    eprintln!("a state message of alice's page: {size} bytes");

    let png = a.screenshot().await.unwrap();
    assert!(png.starts_with(b"\x89PNG"), "not a PNG");
    let target = Path::new(env!("CARGO_BIN_EXE_luprex")).ancestors().nth(2).unwrap();
    std::fs::write(target.join("web-screenshot.png"), &png).unwrap();

    // A malformed message is refused and said so; the client goes on.
    a.execute("ws.send('{\"t\":\"walk\",\"x\":\"east\",\"y\":1}')", vec![]).await.unwrap();
    wait_js(&a, "the page is told of the refusal", prints, |v| {
        v.as_str().is_some_and(|s| s.contains("refused: 'x' is not a coordinate"))
    })
    .await;
    cmd.send_keys("/time").await.unwrap();
    a.find(Locator::Css("#cmdform button")).await.unwrap().click().await.unwrap();
    wait_js(&a, "the client still answers", prints, |v| {
        v.as_str().is_some_and(|s| s.contains("The town clock says"))
    })
    .await;
    let moved = a.execute(&format!("return {WORLD_POS}"), vec![]).await.unwrap();
    assert!(num(&moved[0]) == Some(x1) && num(&moved[1]) == Some(y1), "{moved}");

    // Another site's page may not open alice's WebSocket.
    assert_eq!(upgrade_status(&alice_url, "http://evil.example"), "403");
    assert_eq!(upgrade_status(&alice_url, alice_url.trim_end_matches('/')), "101");

    a.close().await.unwrap();
    b.close().await.unwrap();
    drop((alice, bob));
    let _ = std::fs::remove_dir_all(&dir);
    let _ = std::fs::remove_dir_all(&profiles);
}
