//! What a typed line means, and what the client sends.
//!
//! The command line speaks a small syntax, documented for players in
//! `lua/README.md`:
//!
//! * `/NAME ARGS...` invokes method NAME (it must be marked by
//!   `permit_invoke`) on the player itself if the player's class permits
//!   it, otherwise on the nearest tangible around the player whose class
//!   does (the target is chosen against the client's model, `lookup.rs`);
//! * `/NAME@ID ARGS...` invokes it on tangible ID, wherever it is;
//! * any other line is chat: `say(line)` on the player itself.
//!
//! Arguments are separated by blanks; a double-quoted argument may hold
//! blanks (`\"` and `\\` escape inside it) and is always a string.
//! Unquoted, `nil`, `true` and `false` are those values, a decimal
//! integer is an integer, another number is a float, `#ID` is the
//! tangible ID, and anything else is a string. So `/give #12 wood`
//! passes a tangible and a string.
//!
//! Parsing is pure (no World): [`parse_line`] gives a [`Typed`], which
//! the UI turns into an [`Action`] once it has chosen the target. The
//! [`Action`] is what the network client will send to the server.

use luprex_engine::Plain;

/// What the client sends for the player: a walk, a command, or leaving.
#[derive(Clone, Debug, PartialEq)]
pub enum Action {
    /// The built-in walk command, to this point.
    Walk([f64; 3]),
    /// Invoke permitted method `name` of tangible `target` with `args`.
    Invoke { target: u64, name: String, args: Vec<Plain> },
    /// Leave the game.
    Quit,
}

/// A typed line, parsed.
#[derive(Clone, Debug, PartialEq)]
pub enum Typed {
    /// Chat: a line that is not a command.
    Chat(String),
    /// `/name[@target] args...`.
    Command { name: String, target: Option<u64>, args: Vec<Plain> },
}

/// The name of the chat method a plain line invokes on the player.
pub const CHAT: &str = "say";

/// Parses one typed line (`Err`: why it is not a valid command).
pub fn parse_line(line: &str) -> Result<Typed, String> {
    let line = line.trim();
    let Some(rest) = line.strip_prefix('/') else { return Ok(Typed::Chat(line.to_owned())) };
    let (head, tail) = rest.split_once(char::is_whitespace).unwrap_or((rest, ""));
    let (name, target) = match head.split_once('@') {
        Some((name, id)) => (name, Some(parse_id(id)?)),
        None => (head, None),
    };
    if name.is_empty() || !name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') {
        return Err(format!("'/{head}' is not a command name (letters, digits, _)"));
    }
    Ok(Typed::Command { name: name.to_owned(), target, args: parse_args(tail)? })
}

/// A tangible ID: a positive integer, with or without `#`.
fn parse_id(s: &str) -> Result<u64, String> {
    s.strip_prefix('#')
        .unwrap_or(s)
        .parse::<u64>()
        .ok()
        .filter(|&id| id > 0)
        .ok_or_else(|| format!("'{s}' is not a tangible ID"))
}

/// Splits and converts the arguments (see the module docs).
pub fn parse_args(text: &str) -> Result<Vec<Plain>, String> {
    let mut out = Vec::new();
    let mut chars = text.chars().peekable();
    loop {
        while chars.next_if(|c| c.is_whitespace()).is_some() {}
        match chars.peek() {
            None => return Ok(out),
            Some('"') => {
                chars.next();
                out.push(Plain::Str(quoted(&mut chars)?));
            }
            Some(_) => {
                let mut word = String::new();
                while let Some(c) = chars.next_if(|c| !c.is_whitespace()) {
                    word.push(c);
                }
                out.push(word_value(&word)?);
            }
        }
    }
}

/// The rest of a quoted string, after its opening quote.
fn quoted(chars: &mut impl Iterator<Item = char>) -> Result<String, String> {
    let mut s = String::new();
    while let Some(c) = chars.next() {
        match c {
            '"' => return Ok(s),
            '\\' => s.push(chars.next().ok_or("a '\\' ends the line")?),
            c => s.push(c),
        }
    }
    Err("a quoted argument is not closed".into())
}

/// An unquoted argument's value.
fn word_value(w: &str) -> Result<Plain, String> {
    Ok(match w {
        "nil" => Plain::Nil,
        "true" => Plain::Bool(true),
        "false" => Plain::Bool(false),
        _ if w.starts_with('#') => Plain::Tangible(parse_id(w)?),
        _ => {
            if let Ok(i) = w.parse::<i64>() {
                Plain::Int(i)
            } else if let Some(f) = w.parse::<f64>().ok().filter(|f| f.is_finite()) {
                Plain::Float(f)
            } else {
                Plain::Str(w.to_owned())
            }
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cmd(name: &str, target: Option<u64>, args: Vec<Plain>) -> Typed {
        Typed::Command { name: name.into(), target, args }
    }

    fn s(t: &str) -> Plain {
        Plain::Str(t.into())
    }

    #[test]
    fn plain_text_is_chat() {
        assert_eq!(parse_line("  hello there "), Ok(Typed::Chat("hello there".into())));
        assert_eq!(parse_line("a/b"), Ok(Typed::Chat("a/b".into())));
    }

    #[test]
    fn commands_with_plain_arguments() {
        assert_eq!(parse_line("/chop"), Ok(cmd("chop", None, vec![])));
        assert_eq!(
            parse_line("/give #12 wood"),
            Ok(cmd("give", None, vec![Plain::Tangible(12), s("wood")]))
        );
        assert_eq!(
            parse_line("/set nil true false 3 -2.5 1e3 x7"),
            Ok(cmd(
                "set",
                None,
                vec![
                    Plain::Nil,
                    Plain::Bool(true),
                    Plain::Bool(false),
                    Plain::Int(3),
                    Plain::Float(-2.5),
                    Plain::Float(1000.0),
                    s("x7")
                ]
            ))
        );
        assert_eq!(
            parse_line(r#"/say "two words" "a \"q\" \\" 12"#),
            Ok(cmd("say", None, vec![s("two words"), s(r#"a "q" \"#), Plain::Int(12)]))
        );
        assert_eq!(parse_line("/nan inf nan"), Ok(cmd("nan", None, vec![s("inf"), s("nan")])));
    }

    #[test]
    fn explicit_targets() {
        assert_eq!(parse_line("/open@7"), Ok(cmd("open", Some(7), vec![])));
        assert_eq!(parse_line("/take@#7 torch"), Ok(cmd("take", Some(7), vec![s("torch")])));
    }

    #[test]
    fn malformed_commands() {
        assert!(parse_line("/").unwrap_err().contains("not a command name"));
        assert!(parse_line("/a-b").unwrap_err().contains("not a command name"));
        assert!(parse_line("/open@x").unwrap_err().contains("not a tangible ID"));
        assert!(parse_line("/open@0").unwrap_err().contains("not a tangible ID"));
        assert!(parse_line("/give #x").unwrap_err().contains("not a tangible ID"));
        assert!(parse_line("/say \"open").unwrap_err().contains("not closed"));
    }
}
