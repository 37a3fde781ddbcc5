//! The DXP wire format: messages, their strict parsing and writing, and
//! the framing of a byte stream into NUL-terminated messages.
//!
//! Layouts (offsets from 0, fixed-width fields, numbers zero-padded):
//!
//! | type | layout |
//! |---|---|
//! | GAMEREQ | `R` version(2) name(32) follower colour(1) minutes(3) moves(3) start(1) [side(1) squares(50)] |
//! | GAMEACC | `A` name(32) code(1) |
//! | MOVE | `M` seconds(4) from(2) to(2) n(2) n x captured(2) |
//! | GAMEEND | `E` reason(1) stop(1) |
//! | CHAT | `C` text |
//! | BACKREQ | `B` move number(3) side(1) |
//! | BACKACC | `K` code(1) |

use std::fmt;
use std::io::{self, Read};

use crate::rules::position::{Color, Position};

/// Longest message, without its NUL.
pub const MAX_MESSAGE: usize = 127;
/// Width of the name fields.
const NAME: usize = 32;

/// A DXP message.
#[derive(Clone, Debug, PartialEq)]
pub enum Message {
    /// The initiator asks for a game.
    GameReq {
        /// Protocol version (1).
        version: u32,
        /// The initiator's name.
        name: String,
        /// The colour the follower (the receiver) plays.
        follower: Color,
        /// Thinking time per side, minutes (for the whole game or `moves` moves).
        minutes: f64,
        /// Moves in that time (0: the whole game).
        moves: u32,
        /// The start position; `None` is the initial position.
        start: Option<Position>,
    },
    /// The follower's answer.
    GameAcc {
        /// The follower's name.
        name: String,
        /// 0 accepted, 1 not with this name or version, 2 not now, 3 refused.
        code: u8,
    },
    /// A move.
    Move {
        /// Seconds the sender used (for this move).
        seconds: u32,
        /// Square moved from (1..=50).
        from: u8,
        /// Square moved to.
        to: u8,
        /// Captured squares, in any order.
        captured: Vec<u8>,
    },
    /// The game is over (or abandoned).
    GameEnd {
        /// From the sender's view: 0 unknown, 1 I lose, 2 draw, 3 I win.
        reason: u8,
        /// 0: another game may follow; 1: stop.
        stop: u8,
    },
    /// Free text.
    Chat(String),
    /// Asks to take moves back.
    BackReq {
        /// The move number to go back to.
        move_number: u32,
        /// The side to move there.
        side: Color,
    },
    /// The answer to a BACKREQ.
    BackAcc {
        /// 0 accepted, 1 not supported, 2 refused.
        code: u8,
    },
}

/// Why a message was not understood.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum MessageError {
    /// Nothing between two NULs.
    Empty,
    /// More than [`MAX_MESSAGE`] characters before the NUL.
    TooLong(usize),
    /// A character outside printable ASCII.
    NotAscii,
    /// An unknown message type letter.
    UnknownType(char),
    /// The message has the wrong length for its type.
    Length {
        /// The message type.
        kind: &'static str,
        /// What its layout asks for.
        expected: String,
        /// What arrived.
        found: usize,
    },
    /// A field that does not hold what its layout says.
    Field {
        /// The message type.
        kind: &'static str,
        /// The field.
        field: &'static str,
        /// What it held.
        value: String,
    },
}

impl fmt::Display for MessageError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            MessageError::Empty => write!(f, "empty message"),
            MessageError::TooLong(n) => write!(f, "message of {n} characters, at most {MAX_MESSAGE} allowed"),
            MessageError::NotAscii => write!(f, "message with characters outside printable ASCII"),
            MessageError::UnknownType(c) => write!(f, "unknown message type {c:?}"),
            MessageError::Length { kind, expected, found } => {
                write!(f, "{kind} of {found} characters, {expected} expected")
            }
            MessageError::Field { kind, field, value } => write!(f, "{kind}: bad {field} {value:?}"),
        }
    }
}

impl std::error::Error for MessageError {}

fn field_error(kind: &'static str, field: &'static str, value: &str) -> MessageError {
    MessageError::Field { kind, field, value: value.to_string() }
}

/// A fixed-width decimal field: digits only (leading zeros or spaces).
fn number(kind: &'static str, field: &'static str, text: &str) -> Result<u32, MessageError> {
    let t = text.trim_start();
    if t.is_empty() || !t.bytes().all(|b| b.is_ascii_digit()) {
        return Err(field_error(kind, field, text));
    }
    t.parse().map_err(|_| field_error(kind, field, text))
}

fn square(kind: &'static str, field: &'static str, text: &str) -> Result<u8, MessageError> {
    match number(kind, field, text)? {
        s @ 1..=50 => Ok(s as u8),
        _ => Err(field_error(kind, field, text)),
    }
}

fn colour(kind: &'static str, field: &'static str, text: &str) -> Result<Color, MessageError> {
    match text {
        "W" => Ok(Color::White),
        "Z" => Ok(Color::Black),
        _ => Err(field_error(kind, field, text)),
    }
}

fn colour_letter(c: Color) -> char {
    match c {
        Color::White => 'W',
        Color::Black => 'Z',
    }
}

/// The minutes field: `002`, `2.5`, `.17`, ` 60` (some programs write
/// fractions); a non-negative finite number.
fn minutes(text: &str) -> Result<f64, MessageError> {
    let t = text.trim();
    let ok =
        !t.is_empty() && t.bytes().all(|b| b.is_ascii_digit() || b == b'.') && t.bytes().any(|b| b != b'.');
    match t.parse::<f64>() {
        Ok(m) if ok && m.is_finite() && m >= 0.0 => Ok(m),
        _ => Err(field_error("GAMEREQ", "minutes", text)),
    }
}

/// Writes minutes in three characters: whole minutes zero-padded, or a
/// fraction (`2.5`, `.50`) below 10 minutes, never rounded up.
fn minutes_field(m: f64) -> String {
    let m = if m.is_finite() { m.max(0.0) } else { 999.0 };
    if m >= 10.0 || m.fract() == 0.0 {
        format!("{:03}", (m as u32).min(999))
    } else if m >= 1.0 {
        format!("{:.1}", (m * 10.0).floor() / 10.0)
    } else {
        let hundredths = ((m * 100.0).floor() as u32).max(1);
        format!(".{hundredths:02}")
    }
}

/// The 50 squares of a GAMEREQ: `w` `z` men, `W` `Z` kings, `e` empty.
fn position(side: Color, squares: &str) -> Result<Position, MessageError> {
    let hub: String = std::iter::once(if side == Color::White { 'W' } else { 'B' })
        .chain(squares.chars().map(|c| match c {
            'w' => 'w',
            'z' => 'b',
            'W' => 'W',
            'Z' => 'B',
            'e' => 'e',
            _ => '?',
        }))
        .collect();
    if hub.contains('?') {
        return Err(field_error("GAMEREQ", "squares", squares));
    }
    Position::parse(&hub).map_err(|_| field_error("GAMEREQ", "position", squares))
}

fn squares_field(pos: &Position) -> String {
    pos.to_hub()[1..]
        .chars()
        .map(|c| match c {
            'b' => 'z',
            'B' => 'Z',
            'w' => 'w',
            'W' => 'W',
            _ => 'e',
        })
        .collect()
}

impl Message {
    /// Parses one message (without its NUL), checking every field.
    pub fn parse(text: &str) -> Result<Message, MessageError> {
        if text.is_empty() {
            return Err(MessageError::Empty);
        }
        if !text.bytes().all(|b| (0x20..0x7f).contains(&b)) {
            return Err(MessageError::NotAscii);
        }
        if text.len() > MAX_MESSAGE {
            return Err(MessageError::TooLong(text.len()));
        }
        let length = |kind: &'static str, expected: &str| MessageError::Length {
            kind,
            expected: expected.to_string(),
            found: text.len(),
        };
        let kind = text.as_bytes()[0] as char;
        match kind {
            'R' => {
                const K: &str = "GAMEREQ";
                if text.len() != 43 && text.len() != 94 {
                    return Err(length(K, "43 or 94"));
                }
                let version = number(K, "version", &text[1..3])?;
                let name = text[3..35].trim_end().to_string();
                let follower = colour(K, "colour", &text[35..36])?;
                let minutes = minutes(&text[36..39])?;
                let moves = number(K, "moves", &text[39..42])?;
                let start = match (&text[42..43], text.len()) {
                    ("A", 43) => None,
                    ("B", 94) => {
                        let side = colour(K, "side to move", &text[43..44])?;
                        Some(position(side, &text[44..94])?)
                    }
                    (s @ ("A" | "B"), _) => {
                        return Err(length(K, if s == "A" { "43 with start A" } else { "94 with start B" }))
                    }
                    (s, _) => return Err(field_error(K, "start", s)),
                };
                Ok(Message::GameReq { version, name, follower, minutes, moves, start })
            }
            'A' => {
                const K: &str = "GAMEACC";
                if text.len() != 34 {
                    return Err(length(K, "34"));
                }
                let code = number(K, "code", &text[33..34])?;
                if code > 3 {
                    return Err(field_error(K, "code", &text[33..34]));
                }
                Ok(Message::GameAcc { name: text[1..33].trim_end().to_string(), code: code as u8 })
            }
            'M' => {
                const K: &str = "MOVE";
                if text.len() < 11 {
                    return Err(length(K, "at least 11"));
                }
                let seconds = number(K, "seconds", &text[1..5])?;
                let from = square(K, "from", &text[5..7])?;
                let to = square(K, "to", &text[7..9])?;
                let n = number(K, "capture count", &text[9..11])? as usize;
                if text.len() != 11 + 2 * n {
                    return Err(length(K, &format!("{} for {n} captures", 11 + 2 * n)));
                }
                let captured = (0..n)
                    .map(|i| square(K, "captured square", &text[11 + 2 * i..13 + 2 * i]))
                    .collect::<Result<Vec<u8>, _>>()?;
                Ok(Message::Move { seconds, from, to, captured })
            }
            'E' => {
                const K: &str = "GAMEEND";
                if text.len() != 3 {
                    return Err(length(K, "3"));
                }
                let reason = number(K, "reason", &text[1..2])?;
                let stop = number(K, "stop code", &text[2..3])?;
                if reason > 3 {
                    return Err(field_error(K, "reason", &text[1..2]));
                }
                if stop > 1 {
                    return Err(field_error(K, "stop code", &text[2..3]));
                }
                Ok(Message::GameEnd { reason: reason as u8, stop: stop as u8 })
            }
            'C' => Ok(Message::Chat(text[1..].to_string())),
            'B' => {
                const K: &str = "BACKREQ";
                if text.len() != 5 {
                    return Err(length(K, "5"));
                }
                let move_number = number(K, "move number", &text[1..4])?;
                let side = colour(K, "side to move", &text[4..5])?;
                Ok(Message::BackReq { move_number, side })
            }
            'K' => {
                const K: &str = "BACKACC";
                if text.len() != 2 {
                    return Err(length(K, "2"));
                }
                let code = number(K, "code", &text[1..2])?;
                if code > 2 {
                    return Err(field_error(K, "code", &text[1..2]));
                }
                Ok(Message::BackAcc { code: code as u8 })
            }
            c => Err(MessageError::UnknownType(c)),
        }
    }

    /// The message as sent (without its NUL). Names are cut or padded to
    /// their field, chat text to the length limit; other out-of-range values
    /// are clamped to their fields.
    pub fn encode(&self) -> String {
        let name_field = |name: &str| {
            let clean: String = name.chars().map(|c| if c.is_ascii_graphic() { c } else { ' ' }).collect();
            format!("{:<NAME$.NAME$}", clean)
        };
        match self {
            Message::GameReq { version, name, follower, minutes, moves, start } => {
                let mut s = format!(
                    "R{:02}{}{}{}{:03}",
                    version.min(&99),
                    name_field(name),
                    colour_letter(*follower),
                    minutes_field(*minutes),
                    moves.min(&999)
                );
                match start {
                    Some(p) if *p != Position::start() => {
                        s.push('B');
                        s.push(colour_letter(p.side()));
                        s.push_str(&squares_field(p));
                    }
                    _ => s.push('A'),
                }
                s
            }
            Message::GameAcc { name, code } => format!("A{}{}", name_field(name), code.min(&9)),
            Message::Move { seconds, from, to, captured } => {
                let mut s =
                    format!("M{:04}{:02}{:02}{:02}", seconds.min(&9999), from, to, captured.len().min(58));
                for c in captured.iter().take(58) {
                    s.push_str(&format!("{c:02}"));
                }
                s
            }
            Message::GameEnd { reason, stop } => format!("E{}{}", reason.min(&9), stop.min(&9)),
            Message::Chat(text) => {
                let clean: String = text
                    .chars()
                    .map(|c| if c.is_ascii() && !c.is_ascii_control() { c } else { ' ' })
                    .take(MAX_MESSAGE - 1)
                    .collect();
                format!("C{clean}")
            }
            Message::BackReq { move_number, side } => {
                format!("B{:03}{}", move_number.min(&999), colour_letter(*side))
            }
            Message::BackAcc { code } => format!("K{}", code.min(&9)),
        }
    }
}

impl Message {
    /// The bytes sent: the message and the NUL that ends it.
    pub fn to_wire(&self) -> Vec<u8> {
        let mut bytes = self.encode().into_bytes();
        bytes.push(0);
        bytes
    }
}

/// What the framer hands out: a message's text, or a message that was too
/// long (its bytes are dropped up to the next NUL).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Frame {
    /// The text of one message (without its NUL), bytes as Latin-1.
    Text(String),
    /// A message longer than [`MAX_MESSAGE`], dropped.
    TooLong,
}

/// Splits a byte stream into messages at NUL bytes, however TCP splits or
/// joins them, never holding more than one message's worth of bytes.
#[derive(Debug, Default)]
pub struct Framer {
    buf: Vec<u8>,
    /// Inside a message that is already too long: drop up to its NUL.
    skipping: bool,
}

impl Framer {
    /// A framer with nothing buffered.
    pub fn new() -> Framer {
        Framer::default()
    }

    /// Reads what `stream` has (waiting at most its read timeout) and
    /// returns the messages completed; `Ok(None)` when the peer closed the
    /// connection. A timed-out or interrupted read completes nothing.
    pub fn read_from(&mut self, stream: &mut impl Read) -> io::Result<Option<Vec<Frame>>> {
        let mut buf = [0u8; 4096];
        match stream.read(&mut buf) {
            Ok(0) => Ok(None),
            Ok(n) => Ok(Some(self.push(&buf[..n]))),
            Err(e)
                if matches!(
                    e.kind(),
                    io::ErrorKind::WouldBlock | io::ErrorKind::TimedOut | io::ErrorKind::Interrupted
                ) =>
            {
                Ok(Some(Vec::new()))
            }
            Err(e) => Err(e),
        }
    }

    /// Feeds received bytes; returns the messages they complete.
    pub fn push(&mut self, bytes: &[u8]) -> Vec<Frame> {
        let mut out = Vec::new();
        for &b in bytes {
            if b == 0 {
                if self.skipping {
                    self.skipping = false;
                } else if !self.buf.is_empty() {
                    out.push(Frame::Text(self.buf.iter().map(|&c| c as char).collect()));
                }
                self.buf.clear();
            } else if self.skipping {
                continue;
            } else if self.buf.len() >= MAX_MESSAGE {
                self.buf.clear();
                self.skipping = true;
                out.push(Frame::TooLong);
            } else {
                self.buf.push(b);
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn minutes_fields() {
        assert_eq!(minutes_field(2.0), "002");
        assert_eq!(minutes_field(2.5), "2.5");
        assert_eq!(minutes_field(0.17), ".17");
        assert_eq!(minutes_field(0.001), ".01");
        assert_eq!(minutes_field(120.7), "120");
        assert_eq!(minutes_field(5000.0), "999");
        for t in ["002", "2.5", ".17", "999", " 60"] {
            assert!(minutes(t).is_ok(), "{t}");
        }
        for t in ["...", "-01", "1e2", "   ", "a10"] {
            assert!(minutes(t).is_err(), "{t}");
        }
    }
}
