//! `dammer annotate`: every move of every game of a PDN file searched, the
//! engine's score and best line written as PDN comments, mistakes and
//! blunders marked with the better line as a variation, strong only moves
//! marked `!`, a summary per player, and an evaluation graph as SVG.
//!
//! Each position is searched once, for its two best moves (multi-PV 2):
//! the loss of a move is the best move's score less the played move's,
//! the played move's taken from those two lines or else from the search
//! of the position it leads to. Losses are judged in expected score (the
//! logistic curve the evaluation is fitted with), so that a man lost in
//! a won or lost position weighs less than in a balanced one.

pub mod svg;

use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use crate::engine::options;
use crate::engine::score::{self, Score, WIN_BAND};
use crate::engine::{Engine, Limits};
use crate::rules::game::{DrawReason, Game, GameResult};
use crate::rules::movegen::Move;
use crate::rules::notation::line_to_pdn;
use crate::rules::pdn::{self, MoveNote, PdnGame};
use crate::rules::position::Color;
use crate::tools::interrupt;

/// The arguments of `dammer annotate`.
#[derive(clap::Args, Debug)]
pub struct AnnotateArgs {
    /// The games to annotate (PDN: tags, comments, variations, FEN set-ups).
    pub games: PathBuf,
    /// Where to write the annotated games. Rerunning with the same file
    /// resumes after the games it already holds.
    #[arg(long)]
    pub out: PathBuf,
    /// Seconds to search each position (default 1 unless --depth is given).
    #[arg(long, allow_negative_numbers = true, value_parser = options::time_arg)]
    pub time: Option<Duration>,
    /// Search each position to this depth instead of for a time.
    #[arg(long, allow_negative_numbers = true, value_parser = options::depth, conflicts_with = "time")]
    pub depth: Option<u32>,
    /// Search threads.
    #[arg(long, default_value_t = 1, value_parser = options::threads)]
    pub threads: usize,
    /// Transposition table size in MiB.
    #[arg(long, default_value_t = options::DEFAULT_HASH_MB, value_parser = options::hash_mb)]
    pub hash: usize,
    /// The evaluation.
    #[command(flatten)]
    pub eval: crate::cli::EvalArgs,
    /// The endgame tables.
    #[command(flatten)]
    pub egdb: crate::cli::EgdbArgs,
    /// Draw each game's evaluation graph as SVG to this file (with several
    /// games, `NAME-1.svg`, `NAME-2.svg`, ...).
    #[arg(long)]
    pub svg: Option<PathBuf>,
}

/// Scale of the expected-score curve, hundredths of a man: the sigmoid the
/// evaluation's weights are fitted with (`dammer tune --k`).
const SCALE: f64 = 125.0;
/// Expected score a mistake (`?`) gives away at least.
pub const MISTAKE: f64 = 0.10;
/// Expected score a blunder (`??`) gives away at least.
pub const BLUNDER: f64 = 0.20;
/// How much better than the second best a move must be to be a strong
/// only move (`!`), in expected score.
pub const ONLY_MOVE: f64 = 0.20;
/// Largest loss of one move counted in the average, in hundredths of a
/// man: one lost game's worth, so that a single oversight in a decided
/// position does not drown the rest.
const LOSS_CAP: Score = 300;
/// Plies of the best line in each move's comment.
const COMMENT_PLIES: usize = 6;
/// Plies of a better line given as a variation.
const VARIATION_PLIES: usize = 10;

/// The expected score of a position scored `s` for the side to move.
pub fn expected(s: Score) -> f64 {
    let s = if s.abs() >= score::TB_BAND { s.signum() * 2_000 } else { s };
    1.0 / (1.0 + (-f64::from(s) / SCALE).exp())
}

/// What the search said about one position of a game.
#[derive(Clone, Debug, PartialEq)]
pub struct PositionReport {
    /// Score for the side to move (the best move's).
    pub score: Score,
    /// Completed depth (0: the game was over here, or one move was forced).
    pub depth: u32,
    /// The best lines, best first (at most two; empty when the game is over).
    pub lines: Vec<crate::engine::Line>,
}

/// The verdict on one move.
#[derive(Clone, Debug, PartialEq)]
pub struct MoveReport {
    /// The move played.
    pub mv: Move,
    /// Who played it.
    pub side: Color,
    /// Score of the best move, for the mover.
    pub best: Score,
    /// Score of the move played, for the mover.
    pub played: Score,
    /// Expected score given away (0 when the move was as good as the best).
    pub loss: f64,
    /// `??`, `?`, `!` or empty.
    pub glyph: &'static str,
    /// Score after the move, from White's side (for the graph).
    pub white_score: Score,
}

/// Judges every move of a game from the reports of its positions
/// (`reports[i]` is the position before move `i`; one more, the final
/// position, at the end).
pub fn judge(game: &Game, reports: &[PositionReport]) -> Vec<MoveReport> {
    let positions = game.positions();
    game.moves()
        .iter()
        .enumerate()
        .map(|(i, m)| {
            let side = positions[i].side();
            let r = &reports[i];
            let next = -reports[i + 1].score;
            let first = |line: &crate::engine::Line| line.pv.first() == Some(m);
            let played = match (r.lines.first(), r.lines.get(1)) {
                (Some(l), _) if first(l) => l.score,
                (_, Some(l)) if first(l) => l.score,
                // Not among the two best: the search of the position it
                // leads to says what it is worth, and the second best
                // bounds it from above.
                (_, Some(second)) => next.min(second.score),
                _ => next,
            };
            let best = r.score.max(played);
            let loss = (expected(best) - expected(played)).max(0.0);
            let only = r.lines.len() > 1
                && r.lines[0].pv.first() == Some(m)
                && expected(best) - expected(r.lines[1].score) >= ONLY_MOVE
                && best.abs() < WIN_BAND;
            let glyph = if loss >= BLUNDER {
                "??"
            } else if loss >= MISTAKE {
                "?"
            } else if only {
                "!"
            } else {
                ""
            };
            let after = reports[i + 1].score;
            let white_score = if positions[i + 1].side() == Color::White { after } else { -after };
            MoveReport { mv: *m, side, best, played, loss, glyph, white_score }
        })
        .collect()
}

/// One player's figures over a game.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Summary {
    /// Moves judged.
    pub moves: usize,
    /// Average loss per move in men (each move's capped at 3 men).
    pub average_loss: f64,
    /// Moves marked `?`.
    pub mistakes: usize,
    /// Moves marked `??`.
    pub blunders: usize,
    /// Moves marked `!`.
    pub only_moves: usize,
}

/// The summary of `side`'s moves.
pub fn summarise(moves: &[MoveReport], side: Color) -> Summary {
    let own: Vec<&MoveReport> = moves.iter().filter(|m| m.side == side).collect();
    let total: Score = own.iter().map(|m| (m.best - m.played).clamp(0, LOSS_CAP)).sum();
    Summary {
        moves: own.len(),
        average_loss: if own.is_empty() { 0.0 } else { f64::from(total) / own.len() as f64 / 100.0 },
        mistakes: own.iter().filter(|m| m.glyph == "?").count(),
        blunders: own.iter().filter(|m| m.glyph == "??").count(),
        only_moves: own.iter().filter(|m| m.glyph == "!").count(),
    }
}

impl std::fmt::Display for Summary {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let s = |n: usize| if n == 1 { "" } else { "s" };
        write!(
            f,
            "{} move{}, average loss {:.2} men a move, {} blunder{} (??), {} mistake{} (?), {} strong only move{} (!)",
            self.moves,
            s(self.moves),
            self.average_loss,
            self.blunders,
            s(self.blunders),
            self.mistakes,
            s(self.mistakes),
            self.only_moves,
            s(self.only_moves)
        )
    }
}

/// The annotated PDN of a game: its own tags (the Result kept), the
/// annotator's and the summaries' tags, then the moves with their notes.
pub fn write(
    pdn_game: &PdnGame,
    game: &Game,
    reports: &[PositionReport],
    moves: &[MoveReport],
    annotator: &str,
) -> String {
    let mut tags: Vec<(String, String)> =
        pdn_game.tags.iter().filter(|(n, _)| !is_own_tag(n)).cloned().collect();
    if !tags.iter().any(|(n, _)| n.eq_ignore_ascii_case("FEN"))
        && *game.start() != crate::rules::position::Position::start()
    {
        tags.push(("FEN".into(), game.start().to_fen()));
    }
    tags.push(("Annotator".into(), annotator.to_string()));
    for (side, name) in [(Color::White, "White"), (Color::Black, "Black")] {
        let s = summarise(moves, side);
        tags.push((format!("{name}AverageLoss"), format!("{:.2}", s.average_loss)));
        tags.push((format!("{name}Mistakes"), s.mistakes.to_string()));
        tags.push((format!("{name}Blunders"), s.blunders.to_string()));
    }
    let positions = game.positions();
    let passed = game.passed_draw().filter(|p| p.ply < game.moves().len());
    let notes: Vec<(Move, MoveNote)> = moves
        .iter()
        .enumerate()
        .map(|(i, m)| {
            let before = &positions[i];
            let r = &reports[i];
            let after = &reports[i + 1];
            // The score after the move, from White's side, at the depth of
            // the search of the position it leads to; then the best line
            // from the position before it.
            let mut comment = if after.depth > 0 {
                format!("{}/{}", signed(m.white_score), after.depth)
            } else {
                signed(m.white_score)
            };
            if let Some(best) = r.lines.first() {
                let line = &best.pv[..best.pv.len().min(COMMENT_PLIES)];
                comment.push_str(&format!(" best {}", line_to_pdn(before, line)));
            }
            if passed.is_some_and(|p| p.ply == i + 1) {
                let why = passed.map_or("", |p| p.reason.describe());
                comment.push_str(&format!(" FMJD: {why} here; the game went on"));
            }
            let variation = match (m.glyph, r.lines.first()) {
                ("?" | "??", Some(best)) => {
                    let white_best = if m.side == Color::White { best.score } else { -best.score };
                    best.pv
                        .iter()
                        .take(VARIATION_PLIES)
                        .enumerate()
                        .map(|(k, mv)| (*mv, (k == 0).then(|| signed(white_best))))
                        .collect()
                }
                _ => Vec::new(),
            };
            (m.mv, MoveNote { glyph: m.glyph, comment: Some(comment), variation })
        })
        .collect();
    let result = pdn_game.result.clone().unwrap_or_else(|| game.result().pdn().to_string());
    pdn::write_annotated(&tags, game.start(), &notes, &result)
}

/// Tags an earlier annotation wrote, replaced rather than repeated.
fn is_own_tag(name: &str) -> bool {
    name == "Annotator"
        || ["White", "Black"]
            .iter()
            .any(|side| ["AverageLoss", "Mistakes", "Blunders"].iter().any(|t| name == format!("{side}{t}")))
}

/// A score in men with its sign, as annotations write it (`+0.12`).
fn signed(s: Score) -> String {
    if s > 0 {
        format!("+{}", score::format(s))
    } else {
        score::format(s)
    }
}

/// Searches one position of a game (the game up to it, for the draw
/// rules); a finished game gets its result's score at depth 0. A position
/// the 25-, 16- or 5-move rule had drawn, from which the game went on
/// (`goes_on`: a GUI that applies repetition alone), is searched as the
/// game that went on.
fn report(engine: &mut Engine, game: &Game, limits: &Limits, goes_on: bool) -> PositionReport {
    let result = match game.result() {
        GameResult::Draw(why) if goes_on && why != DrawReason::Repetition => GameResult::Ongoing,
        r => r,
    };
    match result {
        GameResult::Ongoing => {
            let r = engine.search_quietly(game, limits);
            let mut lines = r.lines;
            if lines.is_empty() {
                lines.push(crate::engine::Line { score: r.score, pv: r.pv });
            }
            PositionReport { score: r.score, depth: r.depth, lines }
        }
        GameResult::Win(winner) => {
            let s = if winner == game.position().side() { score::WIN } else { -score::WIN };
            PositionReport { score: s, depth: 0, lines: Vec::new() }
        }
        GameResult::Draw(_) => PositionReport { score: 0, depth: 0, lines: Vec::new() },
    }
}

/// The number of the move that reaches the position `ply` plies after
/// `start` (the PDN's move numbers: White's and Black's move share one).
pub(crate) fn move_number(start: &crate::rules::position::Position, ply: usize) -> usize {
    let black_first = usize::from(start.side() == Color::Black);
    (ply + black_first).div_ceil(2)
}

/// The SVG file of game `index` (from 1) of `count`.
fn svg_path(base: &Path, index: usize, count: usize) -> PathBuf {
    if count == 1 {
        return base.to_path_buf();
    }
    let stem = base.file_stem().map_or("graph".into(), |s| s.to_string_lossy().into_owned());
    let ext = base.extension().map_or("svg".into(), |s| s.to_string_lossy().into_owned());
    base.with_file_name(format!("{stem}-{index}.{ext}"))
}

/// Whether `path` can be written: opened for appending (which changes no
/// file that is there) and removed again if the check created it.
fn writable(path: &Path) -> Result<(), String> {
    let existed = path.exists();
    std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(path)
        .map_err(|e| format!("cannot write {}: {e}", path.display()))?;
    if !existed {
        let _ = std::fs::remove_file(path);
    }
    Ok(())
}

/// How many of `games` the output file already holds (the same moves, in
/// order): the annotation resumes after them. A file of other games is an
/// error rather than something to overwrite.
fn already_done(out: &Path, games: &[PdnGame]) -> Result<usize, String> {
    let text = match std::fs::read_to_string(out) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(0),
        Err(e) => return Err(format!("cannot read {}: {e}", out.display())),
    };
    let done = pdn::read(&text).map_err(|e| format!("{}: {e}", out.display()))?;
    for (i, g) in done.iter().enumerate() {
        if games.get(i).is_none_or(|input| input.moves != g.moves) {
            return Err(format!(
                "{} already holds other games (its game {} is not the input's); choose another --out or remove it",
                out.display(),
                i + 1
            ));
        }
    }
    Ok(done.len())
}

/// Runs `dammer annotate`.
pub fn run_cli(args: &AnnotateArgs) -> Result<(), String> {
    let text = std::fs::read_to_string(&args.games)
        .map_err(|e| format!("cannot read {}: {e}", args.games.display()))?;
    let games = pdn::read(&text).map_err(|e| format!("{}: {e}", args.games.display()))?;
    if games.is_empty() {
        return Err(format!("{} holds no game", args.games.display()));
    }
    // Every game is checked before hours are spent on the first.
    let replayed: Vec<Game> = games
        .iter()
        .enumerate()
        .map(|(i, g)| g.replay().map_err(|e| format!("{} game {}: {e}", args.games.display(), i + 1)))
        .collect::<Result<_, _>>()?;
    let skip = already_done(&args.out, &games)?;
    if skip == games.len() {
        eprintln!("annotate: {} already holds all {} games", args.out.display(), games.len());
        return Ok(());
    }
    if skip > 0 {
        eprintln!("annotate: resuming after the {skip} games {} holds", args.out.display());
    }
    // A depth replaces the time (clap refuses both); neither means 1 s.
    let (time, per_position) = match args.depth {
        Some(d) => (None, format!("depth {d}")),
        None => {
            let t = args.time.unwrap_or(Duration::from_secs(1));
            (Some(t), format!("{} s", t.as_secs_f64()))
        }
    };
    let limits =
        Limits { depth: args.depth, move_time: time, analysis: true, multipv: 2, ..Limits::default() };
    let mut engine = Engine::new(args.threads, args.hash);
    engine.set_evaluation(args.eval.evaluation()?);
    engine.set_egdb(args.egdb.tables()?.map(std::sync::Arc::new));
    let annotator = format!(
        "Dammer {} ({per_position} a position, {} thread{})",
        crate::engine::VERSION,
        args.threads,
        if args.threads == 1 { "" } else { "s" }
    );
    // Every output is checked before hours of search are spent on the games.
    if let Some(base) = &args.svg {
        for index in skip..games.len() {
            writable(&svg_path(base, index + 1, games.len()))?;
        }
    }
    let mut out = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(&args.out)
        .map_err(|e| format!("cannot open {}: {e}", args.out.display()))?;
    interrupt::catch();
    let tty = std::io::stderr().is_terminal();
    let total_positions: usize = replayed[skip..].iter().map(|g| g.moves().len() + 1).sum();
    let started = Instant::now();
    let mut searched = 0usize;
    for (index, (pdn_game, game)) in games.iter().zip(&replayed).enumerate().skip(skip) {
        let mut reports = Vec::with_capacity(game.moves().len() + 1);
        let mut prefix = Game::new(*game.start());
        for i in 0..=game.moves().len() {
            if interrupt::requested() {
                eprintln!();
                return Err(format!(
                    "interrupted in game {}: the {} games before it are in {}; rerun the same command to resume",
                    index + 1,
                    index,
                    args.out.display()
                ));
            }
            if i > 0 {
                prefix.play(game.moves()[i - 1]).map_err(|e| format!("game {}: {e}", index + 1))?;
            }
            reports.push(report(&mut engine, &prefix, &limits, i < game.moves().len()));
            searched += 1;
            let elapsed = started.elapsed().as_secs_f64();
            let left = elapsed / searched as f64 * (total_positions - searched) as f64;
            if tty {
                eprint!(
                    "\rannotate: game {} of {}, position {} of {}, about {} left   ",
                    index + 1,
                    games.len(),
                    i + 1,
                    game.moves().len() + 1,
                    clock(left)
                );
            }
        }
        let moves = judge(game, &reports);
        let text = write(pdn_game, game, &reports, &moves, &annotator);
        out.write_all(text.as_bytes())
            .and_then(|()| out.flush())
            .map_err(|e| format!("cannot write {}: {e}", args.out.display()))?;
        if tty {
            eprintln!();
        }
        let name = |tag: &str| pdn_game.tag(tag).filter(|s| !s.is_empty()).unwrap_or("?").to_string();
        println!(
            "game {} of {}: {} - {} {}",
            index + 1,
            games.len(),
            name("White"),
            name("Black"),
            pdn_game.result.as_deref().unwrap_or("*")
        );
        if let Some(p) = game.passed_draw().filter(|p| p.ply < game.moves().len()) {
            println!(
                "  {} after {} plies (move {}); the game went on, and the moves after it are analysed as played",
                p.reason.describe(),
                p.ply,
                move_number(game.start(), p.ply)
            );
        }
        println!("  White ({}): {}", name("White"), summarise(&moves, Color::White));
        println!("  Black ({}): {}", name("Black"), summarise(&moves, Color::Black));
        if let Some(base) = &args.svg {
            let path = svg_path(base, index + 1, games.len());
            let title = format!(
                "{} - {} {}",
                name("White"),
                name("Black"),
                pdn_game.result.as_deref().unwrap_or("*")
            );
            let graph = svg::graph(&title, game, &reports, &moves);
            std::fs::write(&path, graph).map_err(|e| format!("cannot write {}: {e}", path.display()))?;
            println!("  graph: {}", path.display());
        }
    }
    Ok(())
}

/// Seconds as `1h02m`, `3m20s` or `12s`.
fn clock(secs: f64) -> String {
    let s = secs.round() as u64;
    match s {
        0..60 => format!("{s}s"),
        60..3600 => format!("{}m{:02}s", s / 60, s % 60),
        _ => format!("{}h{:02}m", s / 3600, s % 3600 / 60),
    }
}
