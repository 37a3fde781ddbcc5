//! The Hub protocol's wire format, apart from the command loop: reading a
//! line into a [`Message`], quoting values, and the `info` and `done` lines.
//! A Hub client (the match runner) reads and writes with the same code.

use crate::engine::score;
use crate::engine::{Info, SearchResult};
use crate::rules::movegen::Move;

/// Quotes a value when the protocol requires it.
pub fn quote(v: &str) -> String {
    if v.is_empty() || v.contains([' ', '=', '"', '\t']) {
        format!("\"{}\"", v.replace('"', "'"))
    } else {
        v.to_string()
    }
}

/// One parsed input line: the command word and its `name=value` arguments
/// (a name alone has the value "").
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Message {
    /// The command word.
    pub command: String,
    /// Arguments in order.
    pub args: Vec<(String, String)>,
}

impl Message {
    /// Parses a line; `Err` says why it cannot be read (an unterminated quote).
    pub fn parse(line: &str) -> Result<Option<Message>, String> {
        let mut chars = line.trim().chars().peekable();
        let mut words: Vec<(String, String)> = Vec::new();
        loop {
            while chars.peek().is_some_and(|c| c.is_whitespace()) {
                chars.next();
            }
            if chars.peek().is_none() {
                break;
            }
            let mut name = String::new();
            while let Some(&c) = chars.peek() {
                if c.is_whitespace() || c == '=' {
                    break;
                }
                name.push(c);
                chars.next();
            }
            let mut value = String::new();
            if chars.peek() == Some(&'=') {
                chars.next();
                if chars.peek() == Some(&'"') {
                    chars.next();
                    let mut closed = false;
                    for c in chars.by_ref() {
                        if c == '"' {
                            closed = true;
                            break;
                        }
                        value.push(c);
                    }
                    if !closed {
                        return Err(format!("unterminated quote in the value of {name}"));
                    }
                } else {
                    while let Some(&c) = chars.peek() {
                        if c.is_whitespace() {
                            break;
                        }
                        value.push(c);
                        chars.next();
                    }
                }
            }
            words.push((name, value));
        }
        if words.is_empty() {
            return Ok(None);
        }
        let (command, v) = words.remove(0);
        if command == "pos" && !v.is_empty() {
            // `pos=...` without the command word: read it as `pos pos=...`.
            words.insert(0, ("pos".into(), v));
        }
        Ok(Some(Message { command, args: words }))
    }

    /// The value of the last argument called `name`.
    pub fn get(&self, name: &str) -> Option<&str> {
        self.args.iter().rev().find(|(n, _)| n == name).map(|(_, v)| v.as_str())
    }
}

/// The `pv` value: quoted only when it has more than one move. A line of
/// one move goes unquoted, as Scan writes it: lidraughts' draughtsnet
/// client cannot read a quoted value without a space in it.
fn pv_text(pv: &[Move]) -> String {
    quote(&pv.iter().map(Move::to_string).collect::<Vec<_>>().join(" "))
}

/// The `info` line of a search's progress.
pub fn info_line(info: &Info) -> String {
    format!(
        "info depth={} mean-depth={:.1} score={} nodes={} time={:.3} nps={:.1} pv={}",
        info.depth,
        info.mean_depth,
        score::format(info.score),
        info.nodes,
        info.time.as_secs_f64(),
        info.nps() / 1e6,
        pv_text(&info.pv)
    )
}

/// The `info` lines of a search's progress: the best line as
/// [`info_line`] writes it (every client reads it as before), then, with
/// multi-PV, each further line with its own score and `multipv=K` after
/// the `pv` (K from 2).
pub fn info_lines(info: &Info) -> Vec<String> {
    let mut lines = vec![info_line(info)];
    for (k, line) in info.lines.iter().enumerate().skip(1) {
        let other = Info { score: line.score, pv: line.pv.clone(), lines: Vec::new(), ..info.clone() };
        lines.push(format!("{} multipv={}", info_line(&other), k + 1));
    }
    lines
}

/// The `done` line of a search's result.
pub fn done_line(r: &SearchResult) -> String {
    match (r.best, r.ponder) {
        (Some(m), Some(p)) => format!("done move={m} ponder={p}"),
        (Some(m), None) => format!("done move={m}"),
        // No legal move: there is nothing to play (Scan answers the same way).
        (None, _) => "done".to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(s: &str) -> Message {
        Message::parse(s).unwrap().unwrap()
    }

    #[test]
    fn parses_names_values_and_quotes() {
        let m = parse("pos pos=Wbbbbbbbbbbbbbbbbbbbbeeeeeeeeeewwwwwwwwwwwwwwwwwwww moves=\"32-28 19-23\"");
        assert_eq!(m.command, "pos");
        assert_eq!(m.get("moves"), Some("32-28 19-23"));
        let m = parse("level time=60 inc=0.5");
        assert_eq!(m.get("time"), Some("60"));
        let m = parse("go think");
        assert_eq!(m.args, vec![("think".to_string(), String::new())]);
        assert_eq!(Message::parse("   ").unwrap(), None);
        assert!(Message::parse("pos moves=\"32-28").is_err());
        let m = parse("set-param name=threads value=\"\"");
        assert_eq!(m.get("value"), Some(""));
    }
}
