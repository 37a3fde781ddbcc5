//! PDN: writing finished games, and reading games back (openings, tests).

use std::fmt::Write as _;
use std::time::{SystemTime, UNIX_EPOCH};

use crate::rules::game::Game;
use crate::rules::notation::to_pdn;
use crate::rules::position::{Color, Position};

/// One game read from a PDN file.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PdnGame {
    /// Tags in file order.
    pub tags: Vec<(String, String)>,
    /// Moves as written.
    pub moves: Vec<String>,
    /// The comment (`{...}`) written after each move, if any: one entry a
    /// move (what `dammer match` writes there: score/depth and time).
    pub comments: Vec<Option<String>>,
    /// The result token (`2-0`, `1-1`, `0-2`, `*`), if any.
    pub result: Option<String>,
}

impl PdnGame {
    /// The value of a tag.
    pub fn tag(&self, name: &str) -> Option<&str> {
        self.tags.iter().find(|(n, _)| n.eq_ignore_ascii_case(name)).map(|(_, v)| v.as_str())
    }

    /// The game's variant: its `Variant` tag, else Frisian for `GameType`
    /// 40, else the international game.
    pub fn variant(&self) -> Result<crate::rules::variant::Variant, String> {
        use crate::rules::variant::Variant;
        match (self.tag("Variant"), self.tag("GameType")) {
            (Some(name), _) => Variant::from_name(name).map_err(|e| e.to_string()),
            (None, Some(t)) if t.trim().starts_with("40") => Ok(Variant::Frisian),
            _ => Ok(Variant::Normal),
        }
    }

    /// How the game ended: its `Result` tag, or where that names no end
    /// (missing, `*`), the result token after its moves. None for a game
    /// that neither calls finished.
    pub fn finished(&self) -> Option<PdnResult> {
        let token = |t: Option<&str>| t.and_then(PdnResult::from_token);
        token(self.tag("Result")).or_else(|| token(self.result.as_deref()))
    }

    /// Replays the game from its FEN tag (or the initial position) by
    /// Dammer's rules.
    pub fn replay(&self) -> Result<Game, String> {
        let variant = self.variant()?;
        let mut game = match self.tag("FEN") {
            Some(fen) => Game::from_text(fen).map_err(|e| format!("bad FEN tag {fen:?}: {e}"))?,
            None => Game::new(Position::start()),
        }
        .in_variant(variant);
        for (i, m) in self.moves.iter().enumerate() {
            game.play_text(m).map_err(|e| format!("move {} ({m}): {e}", i + 1))?;
        }
        Ok(game)
    }
}

/// How a PDN result ends a game.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PdnResult {
    /// This side won.
    Win(Color),
    /// Drawn.
    Draw,
}

impl PdnResult {
    /// The end a result token names: draughts' `2-0`, `1-1`, `0-2`, and
    /// chess's `1-0`, `1/2-1/2`, `0-1`, which some tools write; None for
    /// an unfinished game (`*`), a double forfeit (`0-0`) or anything else.
    pub fn from_token(token: &str) -> Option<PdnResult> {
        match token.trim() {
            "2-0" | "1-0" => Some(PdnResult::Win(Color::White)),
            "0-2" | "0-1" => Some(PdnResult::Win(Color::Black)),
            "1-1" | "1/2-1/2" => Some(PdnResult::Draw),
            _ => None,
        }
    }
}

const RESULTS: [&str; 8] = ["2-0", "0-2", "1-1", "0-0", "1-0", "0-1", "1/2-1/2", "*"];

/// Reads every game of a PDN text. Comments (`{...}`, `;` to the end of
/// the line), variations (`(...)`), move numbers and annotation glyphs are
/// skipped; a game ends at its result token or at the next tag section.
pub fn read(text: &str) -> Result<Vec<PdnGame>, String> {
    let mut games = Vec::new();
    let mut game = PdnGame::default();
    let mut chars = text.char_indices().peekable();
    let mut line = 1;
    let mut in_moves = false;
    let finish = |game: &mut PdnGame, games: &mut Vec<PdnGame>| {
        if !game.tags.is_empty() || !game.moves.is_empty() || game.result.is_some() {
            games.push(std::mem::take(game));
        }
    };
    while let Some(&(_, c)) = chars.peek() {
        match c {
            '\n' => {
                line += 1;
                chars.next();
            }
            c if c.is_whitespace() => {
                chars.next();
            }
            '[' => {
                if in_moves {
                    finish(&mut game, &mut games);
                    in_moves = false;
                }
                chars.next();
                let mut body = String::new();
                let mut in_quote = false;
                loop {
                    match chars.next() {
                        Some((_, '"')) => {
                            in_quote = !in_quote;
                            body.push('"');
                        }
                        Some((_, ']')) if !in_quote => break,
                        Some((_, '\n')) => return Err(format!("line {line}: tag not closed")),
                        Some((_, ch)) => body.push(ch),
                        None => return Err(format!("line {line}: tag not closed")),
                    }
                }
                let (name, value) =
                    body.split_once('"').ok_or(format!("line {line}: tag without a value"))?;
                let value = value.strip_suffix('"').ok_or(format!("line {line}: tag value not quoted"))?;
                game.tags.push((name.trim().to_string(), value.to_string()));
            }
            '{' | '(' => {
                let close = if c == '{' { '}' } else { ')' };
                let mut depth = 0;
                let mut body = String::new();
                loop {
                    match chars.next() {
                        Some((_, ch)) if ch == c => {
                            depth += 1;
                            if depth > 1 {
                                body.push(ch);
                            }
                        }
                        Some((_, ch)) if ch == close => {
                            depth -= 1;
                            if depth == 0 {
                                break;
                            }
                            body.push(ch);
                        }
                        Some((_, ch)) => {
                            if ch == '\n' {
                                line += 1;
                            }
                            body.push(if ch == '\n' { ' ' } else { ch });
                        }
                        None => return Err(format!("line {line}: {c} not closed")),
                    }
                }
                // A comment belongs to the move before it (the first one, if several).
                if c == '{' && in_moves {
                    if let Some(slot @ None) = game.comments.last_mut() {
                        *slot = Some(body.trim().to_string());
                    }
                }
            }
            ';' => {
                while chars.peek().is_some_and(|&(_, ch)| ch != '\n') {
                    chars.next();
                }
            }
            _ => {
                let mut token = String::new();
                while let Some(&(_, ch)) = chars.peek() {
                    if ch.is_whitespace() || "[{(;".contains(ch) {
                        break;
                    }
                    token.push(ch);
                    chars.next();
                }
                in_moves = true;
                if RESULTS.contains(&token.as_str()) {
                    game.result = Some(token);
                    finish(&mut game, &mut games);
                    in_moves = false;
                    continue;
                }
                // Move numbers "12." / "12..." possibly glued to the move.
                let rest = token.trim_start_matches(|ch: char| ch.is_ascii_digit());
                let mv = if rest.starts_with('.') { rest.trim_start_matches('.') } else { token.as_str() };
                let mv = mv.trim_end_matches(['!', '?', '+', '*']);
                if mv.is_empty() || mv.starts_with('$') {
                    continue;
                }
                if !mv.chars().next().is_some_and(|ch| ch.is_ascii_digit()) {
                    return Err(format!("line {line}: cannot read {token:?} as a move"));
                }
                game.moves.push(mv.to_string());
                game.comments.push(None);
            }
        }
    }
    finish(&mut game, &mut games);
    Ok(games)
}

/// Today's date (UTC) as PDN writes it, `YYYY.MM.DD`.
pub fn today() -> String {
    let days = SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |d| d.as_secs() / 86_400) as i64;
    let (y, m, d) = civil_from_days(days);
    format!("{y:04}.{m:02}.{d:02}")
}

/// The proleptic Gregorian date of a day count since 1970-01-01.
fn civil_from_days(days: i64) -> (i64, u32, u32) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    let y = yoe + era * 400 + i64::from(m <= 2);
    (y, m, d)
}

/// Everything a finished game's PDN needs besides the moves.
#[derive(Clone, Debug, Default)]
pub struct GameTags {
    /// Event name.
    pub event: String,
    /// Where it was played.
    pub site: String,
    /// `YYYY.MM.DD`.
    pub date: String,
    /// Round (game number).
    pub round: u32,
    /// White's name.
    pub white: String,
    /// Black's name.
    pub black: String,
    /// `2-0`, `1-1`, `0-2` or `*`.
    pub result: String,
    /// The time control as PDN writes it (`0.1s/move`, `60+0.5`, `40/60`).
    pub time_control: String,
    /// Why the game ended.
    pub termination: String,
    /// The game played; a variant gets a `Variant` tag with Scan's name.
    pub variant: crate::rules::variant::Variant,
}

/// Writes one game: tags, then the moves numbered in full moves, each with
/// an optional `{comment}`, then the result. The FEN tag is always given.
pub fn write_game(
    tags: &GameTags,
    start: &Position,
    moves: &[(crate::rules::movegen::Move, Option<String>)],
) -> String {
    let mut list: Vec<(String, String)> = [
        ("Event", tags.event.clone()),
        ("Site", tags.site.clone()),
        ("Date", tags.date.clone()),
        ("Round", tags.round.to_string()),
        ("White", tags.white.clone()),
        ("Black", tags.black.clone()),
        ("Result", tags.result.clone()),
        (
            "GameType",
            if tags.variant == crate::rules::variant::Variant::Frisian { "40" } else { "20" }.to_string(),
        ),
        ("FEN", start.to_fen()),
        ("TimeControl", tags.time_control.clone()),
        ("Termination", tags.termination.clone()),
        ("PlyCount", moves.len().to_string()),
    ]
    .into_iter()
    .map(|(n, v)| (n.to_string(), v))
    .collect();
    if tags.variant != crate::rules::variant::Variant::Normal {
        list.insert(8, ("Variant".into(), tags.variant.name().into()));
    }
    let notes: Vec<_> =
        moves.iter().map(|(m, c)| (*m, MoveNote { comment: c.clone(), ..MoveNote::default() })).collect();
    write_annotated(&list, start, &notes, &tags.result)
}

/// What an annotator adds to a move.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct MoveNote {
    /// `?`, `??`, `!` or empty, written right after the move.
    pub glyph: &'static str,
    /// A comment after the move.
    pub comment: Option<String>,
    /// A line to play instead of the move (it starts with its own first
    /// move), each move with an optional comment; written in parentheses
    /// after the move's comment.
    pub variation: Vec<(crate::rules::movegen::Move, Option<String>)>,
}

/// A move as PDN writes it in a line of play: `12. 32-28` for White,
/// `12... 19-23` for Black when the line starts with it, `19-23` for Black
/// otherwise; `glyph` (`?`, `!`, ...) right after the move; with `hub`, in
/// Hub notation.
fn numbered(
    pos: &Position,
    m: &crate::rules::movegen::Move,
    number: u32,
    opens_line: bool,
    glyph: &str,
    hub: bool,
) -> String {
    let mv = if hub { m.to_string() } else { to_pdn(pos, m) };
    match (pos.side(), opens_line) {
        (crate::rules::position::Color::White, _) => format!("{number}. {mv}{glyph}"),
        (_, true) => format!("{number}... {mv}{glyph}"),
        (_, false) => format!("{mv}{glyph}"),
    }
}

/// Writes one game with the tags as given (in order), the moves with their
/// glyphs, comments and variations, then `result`. Lines stay within 80
/// columns where the units allow; comments lose any braces of their own.
pub fn write_annotated(
    tags: &[(String, String)],
    start: &Position,
    moves: &[(crate::rules::movegen::Move, MoveNote)],
    result: &str,
) -> String {
    // A variant with its own moves is written in Hub notation (every
    // captured square): PDN's shortest capture paths are the international
    // game's.
    let hub = tags.iter().any(|(n, v)| {
        n == "Variant" && crate::rules::variant::Variant::from_name(v).is_ok_and(|v| !v.pdn_paths())
    });
    let mut out = String::new();
    for (name, value) in tags {
        let _ = writeln!(out, "[{name} \"{}\"]", value.replace('"', "'"));
    }
    out.push('\n');
    // Units that stay on one line: "12. 32-28", "19-23", "{comment}".
    let mut units: Vec<String> = Vec::with_capacity(2 * moves.len() + 1);
    let comment = |c: &str| format!("{{{}}}", c.replace(['{', '}'], ""));
    let mut pos = *start;
    // Full-move number of the position about to move.
    let mut number = 1;
    for (i, (m, note)) in moves.iter().enumerate() {
        let white = pos.side() == crate::rules::position::Color::White;
        units.push(numbered(&pos, m, number, i == 0, note.glyph, hub));
        if let Some(c) = &note.comment {
            units.push(comment(c));
        }
        if !note.variation.is_empty() {
            let mut vpos = pos;
            let mut vnumber = number;
            let first = units.len();
            for (j, (vm, vc)) in note.variation.iter().enumerate() {
                let vwhite = vpos.side() == crate::rules::position::Color::White;
                units.push(numbered(&vpos, vm, vnumber, j == 0, "", hub));
                if let Some(c) = vc {
                    units.push(comment(c));
                }
                if !vwhite {
                    vnumber += 1;
                }
                vpos = vpos.make(vm);
            }
            units[first].insert(0, '(');
            if let Some(last) = units.last_mut() {
                last.push(')');
            }
        }
        if !white {
            number += 1;
        }
        pos = pos.make(m);
    }
    units.push(result.to_string());
    let mut col = 0;
    for unit in &units {
        if col > 0 && col + unit.len() + 1 > 80 {
            out.push('\n');
            col = 0;
        } else if col > 0 {
            out.push(' ');
            col += 1;
        }
        out.push_str(unit);
        col += unit.len();
    }
    out.push_str("\n\n");
    out
}

#[cfg(test)]
mod tests {
    #[test]
    fn dates_are_civil() {
        assert_eq!(civil_from_days(0), (1970, 1, 1));
        assert_eq!(civil_from_days(11_016), (2000, 2, 29));
        assert_eq!(civil_from_days(20_787), (2026, 11, 30));
    }

    use super::*;
    use crate::rules::game::GameResult;

    #[test]
    fn written_games_read_back() {
        let mut game = Game::new(Position::start());
        for m in ["32-28", "19-23", "28x19", "14x23", "37-32", "10-14"] {
            game.play_text(m).unwrap();
        }
        let moves: Vec<_> = game
            .moves()
            .iter()
            .enumerate()
            .map(|(i, m)| (*m, (i % 2 == 0).then(|| "+0.10/12".into())))
            .collect();
        let tags = GameTags {
            event: "test".into(),
            white: "A \"quoted\"".into(),
            black: "B".into(),
            result: "1-1".into(),
            termination: "adjudication".into(),
            ..GameTags::default()
        };
        let text = write_game(&tags, game.start(), &moves);
        assert!(text.contains("1. 32-28 {+0.10/12} 19-23 2. 28x19 {+0.10/12} 14x23"), "{text}");
        let read_back = read(&format!("{text}{text}")).unwrap();
        assert_eq!(read_back.len(), 2);
        assert_eq!(read_back[0].tag("White"), Some("A 'quoted'"));
        assert_eq!(read_back[0].result.as_deref(), Some("1-1"));
        let replayed = read_back[1].replay().unwrap();
        assert_eq!(replayed.moves(), game.moves());
        // Each move's comment comes back with it.
        let comments: Vec<_> = moves.iter().map(|(_, c)| c.clone()).collect();
        assert_eq!(read_back[1].comments, comments);
    }

    #[test]
    fn black_to_move_and_annotations() {
        let text = "[FEN \"B:W31-50:B1-20\"]\n1... 19-23! 2. 32-28 $1 (2. 31-27 {side line}) 23x32 ; gone\n3. 37x28 *";
        let games = read(text).unwrap();
        assert_eq!(games.len(), 1);
        assert_eq!(games[0].moves, vec!["19-23", "32-28", "23x32", "37x28"]);
        // A variation's comment is no comment of the game's moves.
        assert_eq!(games[0].comments, vec![None; 4]);
        let g = games[0].replay().unwrap();
        assert_eq!(g.moves().len(), 4);
        assert_eq!(g.result(), GameResult::Ongoing);
        let written = write_game(
            &GameTags { result: "*".into(), ..GameTags::default() },
            g.start(),
            &g.moves().iter().map(|m| (*m, None)).collect::<Vec<_>>(),
        );
        assert!(written.contains("1... 19-23 2. 32-28 23x32 3. 37x28 *"), "{written}");
    }

    #[test]
    fn broken_pdn_is_an_error() {
        assert!(read("[Event \"x\"\n1. 32-28 *").is_err());
        assert!(read("1. 32-28 {open").is_err());
        assert!(read("1. hello *").is_err());
        assert!(read("[FEN \"nonsense\"] 1. 32-28 *").unwrap()[0].replay().is_err());
        assert!(read("1. 32-26 *").unwrap()[0].replay().is_err());
    }

    #[test]
    fn a_game_is_finished_by_its_tag_or_else_its_token() {
        let finished = |text: &str| read(text).unwrap()[0].finished();
        let white = Some(PdnResult::Win(Color::White));
        assert_eq!(finished("[Result \"2-0\"]\n\n1. 32-28 *"), white);
        assert_eq!(finished("[Result \"*\"]\n\n1. 32-28 0-2"), Some(PdnResult::Win(Color::Black)));
        assert_eq!(finished("[Result \"1/2-1/2\"]\n\n1. 32-28"), Some(PdnResult::Draw));
        assert_eq!(finished("1. 32-28 1-0"), white);
        assert_eq!(finished("[Result \"0-0\"]\n\n1. 32-28 *"), None);
        assert_eq!(finished("[Result \"?\"]\n\n1. 32-28"), None);
    }
}
