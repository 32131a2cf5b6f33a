//! The messages between the page and the client process, and the
//! validation of what the page sends.
//!
//! Everything on the WebSocket is a JSON text message whose field `t`
//! names its kind.
//!
//! Page → client ([`PageMsg`], parsed by [`parse`]):
//!
//! ```text
//! {"t":"line","text":"/craft torch"}      a typed line (tui/command.rs syntax)
//! {"t":"walk","x":3.5,"y":-2}             walk to this point of the map
//! {"t":"invoke","target":12,"name":"chop","args":[]}
//! ```
//!
//! An `invoke` argument is `null`, a boolean, an integer, a finite float,
//! a string, or `{"tangible":ID}`.
//!
//! Client → page (built by `scene.rs` and [`error`]): `state` (the scene
//! and the indicators, at most once a frame and only when changed),
//! `prints` (the print buffer's tail, when it changed) and `error` (why a
//! message of this page was refused).
//!
//! Invariants: [`parse`] accepts exactly the three kinds above, with
//! exactly their fields, within the limits below ([`MAX_MESSAGE`] bytes,
//! [`MAX_TEXT`] characters, [`MAX_ARGS`] arguments, finite coordinates
//! within [`MAX_COORD`]); anything else is an `Err` with a reason, which
//! the server logs and sends back, and which never reaches the World. An
//! accepted message still only becomes a `luprex_net::Command` that the
//! server judges as any other (an invoke of a method nobody permits
//! fails there). Parsing never panics.

use luprex_engine::Plain;
use serde_json::{Map, Value};

/// The largest message the page may send, in bytes.
pub const MAX_MESSAGE: usize = 4096;
/// The longest typed line or string argument, in characters.
pub const MAX_TEXT: usize = 1000;
/// The most arguments of an invoke.
pub const MAX_ARGS: usize = 16;
/// The largest coordinate a walk may name (absolute value).
pub const MAX_COORD: f64 = 1.0e6;
/// The longest method name.
pub const MAX_NAME: usize = 64;

/// A message from the page, validated.
#[derive(Clone, Debug, PartialEq)]
pub enum PageMsg {
    /// A typed line.
    Line(String),
    /// Walk to (x, y) on the map (the player's height is kept).
    Walk { x: f64, y: f64 },
    /// Invoke method `name` of tangible `target`.
    Invoke { target: u64, name: String, args: Vec<Plain> },
}

/// Parses and validates one text message from the page (see the module
/// docs); `Err` says why it is refused.
pub fn parse(text: &str) -> Result<PageMsg, String> {
    if text.len() > MAX_MESSAGE {
        return Err(format!("message of {} bytes (at most {MAX_MESSAGE})", text.len()));
    }
    let v: Value = serde_json::from_str(text).map_err(|e| format!("not JSON: {e}"))?;
    let Value::Object(o) = v else { return Err("not a JSON object".into()) };
    let kind = match o.get("t") {
        Some(Value::String(k)) => k.as_str(),
        _ => return Err("no string field 't'".into()),
    };
    match kind {
        "line" => {
            only(&o, &["t", "text"])?;
            let text = string(&o, "text")?;
            if text.trim().is_empty() {
                return Err("an empty line".into());
            }
            Ok(PageMsg::Line(text))
        }
        "walk" => {
            only(&o, &["t", "x", "y"])?;
            Ok(PageMsg::Walk { x: coord(&o, "x")?, y: coord(&o, "y")? })
        }
        "invoke" => {
            only(&o, &["t", "target", "name", "args"])?;
            let target = match o.get("target").and_then(Value::as_u64) {
                Some(id) if id > 0 && id <= i64::MAX as u64 => id,
                _ => return Err("'target' is not a tangible ID".into()),
            };
            let name = string(&o, "name")?;
            let valid = !name.is_empty()
                && name.len() <= MAX_NAME
                && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
            if !valid {
                return Err("'name' is not a method name (letters, digits, _)".into());
            }
            let args = match o.get("args") {
                None => Vec::new(),
                Some(Value::Array(a)) if a.len() <= MAX_ARGS => {
                    a.iter().map(arg).collect::<Result<_, _>>()?
                }
                Some(Value::Array(_)) => return Err(format!("more than {MAX_ARGS} arguments")),
                Some(_) => return Err("'args' is not an array".into()),
            };
            Ok(PageMsg::Invoke { target, name, args })
        }
        other => Err(format!("unknown message kind '{}'", clip(other))),
    }
}

/// The `error` message that tells the page why its message was refused.
pub fn error(reason: &str) -> String {
    serde_json::json!({ "t": "error", "text": reason }).to_string()
}

/// The `prints` message: the print buffer's tail, oldest line first.
pub fn prints<'a>(lines: impl IntoIterator<Item = &'a String>) -> String {
    #[derive(serde::Serialize)]
    struct Prints<'a> {
        t: &'static str,
        lines: Vec<&'a String>,
    }
    let msg = Prints { t: "prints", lines: lines.into_iter().collect() };
    serde_json::to_string(&msg).unwrap_or_default()
}

/// Refuses fields other than `allowed`.
fn only(o: &Map<String, Value>, allowed: &[&str]) -> Result<(), String> {
    match o.keys().find(|k| !allowed.contains(&k.as_str())) {
        Some(k) => Err(format!("unknown field '{}'", clip(k))),
        None => Ok(()),
    }
}

fn string(o: &Map<String, Value>, key: &str) -> Result<String, String> {
    match o.get(key) {
        Some(Value::String(s)) => text_ok(s).map(|()| s.clone()),
        _ => Err(format!("'{key}' is not a string")),
    }
}

/// A string's limits: length, and no control characters.
fn text_ok(s: &str) -> Result<(), String> {
    if s.chars().count() > MAX_TEXT {
        return Err(format!("a text longer than {MAX_TEXT} characters"));
    }
    if s.chars().any(char::is_control) {
        return Err("a text with control characters".into());
    }
    Ok(())
}

fn coord(o: &Map<String, Value>, key: &str) -> Result<f64, String> {
    match o.get(key).and_then(Value::as_f64) {
        Some(c) if c.is_finite() && c.abs() <= MAX_COORD => Ok(c),
        _ => Err(format!("'{key}' is not a coordinate (a number within ±{MAX_COORD})")),
    }
}

/// One invoke argument.
fn arg(v: &Value) -> Result<Plain, String> {
    Ok(match v {
        Value::Null => Plain::Nil,
        Value::Bool(b) => Plain::Bool(*b),
        Value::Number(n) => match (n.as_i64(), n.as_f64()) {
            (Some(i), _) => Plain::Int(i),
            (None, Some(f)) if f.is_finite() && n.as_u64().is_none() => Plain::Float(f),
            _ => return Err(format!("argument {n} is out of range")),
        },
        Value::String(s) => {
            text_ok(s)?;
            Plain::Str(s.clone())
        }
        Value::Object(o) if o.len() == 1 => match o.get("tangible").and_then(Value::as_u64) {
            Some(id) if id > 0 && id <= i64::MAX as u64 => Plain::Tangible(id),
            _ => return Err("an object argument is not {\"tangible\":ID}".into()),
        },
        _ => {
            return Err("an argument is not nil, a boolean, a number, a string or a tangible".into())
        }
    })
}

/// At most 40 characters of something the page sent, for a message.
fn clip(s: &str) -> String {
    s.chars().take(40).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_three_kinds() {
        assert_eq!(parse(r#"{"t":"line","text":"say hi"}"#), Ok(PageMsg::Line("say hi".into())));
        assert_eq!(parse(r#"{"t":"walk","x":3,"y":-2.5}"#), Ok(PageMsg::Walk { x: 3.0, y: -2.5 }));
        let args = r#"[null,true,7,-1.5,"wood",{"tangible":12}]"#;
        let msg = format!(r#"{{"t":"invoke","target":5,"name":"give_all","args":{args}}}"#);
        assert_eq!(
            parse(&msg),
            Ok(PageMsg::Invoke {
                target: 5,
                name: "give_all".into(),
                args: vec![
                    Plain::Nil,
                    Plain::Bool(true),
                    Plain::Int(7),
                    Plain::Float(-1.5),
                    Plain::Str("wood".into()),
                    Plain::Tangible(12)
                ]
            })
        );
        let bare = parse(r#"{"t":"invoke","target":5,"name":"chop"}"#).unwrap();
        assert_eq!(bare, PageMsg::Invoke { target: 5, name: "chop".into(), args: vec![] });
    }

    /// Each malformed message is refused with its reason.
    #[test]
    fn malformed_messages_are_refused() {
        let long = format!(r#"{{"t":"line","text":"{}"}}"#, "x".repeat(MAX_MESSAGE));
        let long_text = format!(r#"{{"t":"line","text":"{}"}}"#, "é".repeat(MAX_TEXT + 1));
        let many =
            format!(r#"{{"t":"invoke","target":1,"name":"a","args":[{}1]}}"#, "1,".repeat(16));
        let cases: &[(&str, &str)] = &[
            ("", "not JSON"),
            ("{", "not JSON"),
            ("[1]", "not a JSON object"),
            ("\"line\"", "not a JSON object"),
            (r#"{"text":"hi"}"#, "no string field 't'"),
            (r#"{"t":3}"#, "no string field 't'"),
            (r#"{"t":"quit"}"#, "unknown message kind 'quit'"),
            (r#"{"t":"line"}"#, "'text' is not a string"),
            (r#"{"t":"line","text":5}"#, "'text' is not a string"),
            (r#"{"t":"line","text":"   "}"#, "an empty line"),
            (r#"{"t":"line","text":"a\u0000b"}"#, "control characters"),
            (r#"{"t":"line","text":"hi","x":1}"#, "unknown field 'x'"),
            (&long, "bytes (at most 4096)"),
            (&long_text, "longer than 1000"),
            (r#"{"t":"walk","x":1}"#, "'y' is not a coordinate"),
            (r#"{"t":"walk","x":"1","y":2}"#, "'x' is not a coordinate"),
            (r#"{"t":"walk","x":1e300,"y":2}"#, "'x' is not a coordinate"),
            (r#"{"t":"walk","x":1e999,"y":2}"#, "not JSON"),
            (r#"{"t":"walk","x":null,"y":2}"#, "'x' is not a coordinate"),
            (r#"{"t":"invoke","target":0,"name":"a"}"#, "not a tangible ID"),
            (r#"{"t":"invoke","target":-3,"name":"a"}"#, "not a tangible ID"),
            (r#"{"t":"invoke","target":1.5,"name":"a"}"#, "not a tangible ID"),
            (r#"{"t":"invoke","target":18446744073709551615,"name":"a"}"#, "not a tangible ID"),
            (r#"{"t":"invoke","target":1,"name":"a b"}"#, "not a method name"),
            (r#"{"t":"invoke","target":1,"name":""}"#, "not a method name"),
            (r#"{"t":"invoke","target":1,"name":"a","args":{}}"#, "'args' is not an array"),
            (r#"{"t":"invoke","target":1,"name":"a","args":[[1]]}"#, "an argument is not"),
            (r#"{"t":"invoke","target":1,"name":"a","args":[{"x":1}]}"#, "not {\"tangible\":ID}"),
            (r#"{"t":"invoke","target":1,"name":"a","args":[{"tangible":0}]}"#, "tangible"),
            (r#"{"t":"invoke","target":1,"name":"a","args":[18446744073709551615]}"#, "range"),
            (&many, "more than 16 arguments"),
        ];
        for (msg, why) in cases {
            let got = parse(msg);
            match &got {
                Err(e) if e.contains(why) => {}
                _ => panic!("{msg:?}: got {got:?}, want an error with {why:?}"),
            }
        }
    }

    #[test]
    fn prints_are_json_for_the_page() {
        let lines = ["a \"q\"".to_owned(), "b".to_owned()];
        assert_eq!(prints(&lines), r#"{"t":"prints","lines":["a \"q\"","b"]}"#);
    }

    #[test]
    fn errors_are_json_for_the_page() {
        let v: Value = serde_json::from_str(&error("a \"bad\" one")).unwrap();
        assert_eq!(v["t"], "error");
        assert_eq!(v["text"], "a \"bad\" one");
    }
}
