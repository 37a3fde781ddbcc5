//! A game record: the start position, the moves played, and the result under
//! the FMJD rules (no legal move, threefold repetition, the 25-move king rule
//! and the 16-move and 5-move endgame rules) or a variant's ([`Variant`]).
//!
//! The counters the draw rules need are kept per ply in [`PlyState`] so the
//! search can carry the same state along its own line of play.

use std::fmt;

use crate::rules::frisian::KingRuns;
use crate::rules::movegen::{legal_moves, Move, MoveList};
use crate::rules::notation::{parse_move_among, MoveError};
use crate::rules::position::{Color, FenError, Position};
use crate::rules::variant::Variant;

/// Plies of king moves without a capture or man move that draw (25 moves each).
pub const KING_MOVES_DRAW_PLIES: u32 = 50;
/// Plies allowed in a 16-move endgame (16 moves each).
pub const SIXTEEN_MOVE_PLIES: u32 = 32;
/// Plies allowed in a 5-move endgame (5 moves each).
pub const FIVE_MOVE_PLIES: u32 = 10;

/// The FMJD endgame rule that applies to a material configuration.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum EndgameRule {
    /// Three pieces, at least one a king, against a lone king: 16 moves each.
    Sixteen,
    /// At most two pieces, at least one a king, against a lone king: 5 moves each.
    Five,
}

impl EndgameRule {
    /// Plies the stronger side has before the game is drawn.
    pub const fn limit(self) -> u32 {
        match self {
            EndgameRule::Sixteen => SIXTEEN_MOVE_PLIES,
            EndgameRule::Five => FIVE_MOVE_PLIES,
        }
    }

    /// The rule for `pos`'s material, if any: one side has a lone king and
    /// the other at most three pieces of which at least one is a king.
    pub fn of(pos: &Position) -> Option<EndgameRule> {
        // Every rule needs a king on the board: most positions of a search
        // have none, and this test is made at every move.
        if pos.kings() == 0 {
            return None;
        }
        let lone = |c: Color| pos.pieces(c).count_ones() == 1 && pos.kings_of(c) != 0;
        let rule_against = |c: Color| {
            let n = pos.pieces(c).count_ones();
            if pos.kings_of(c) == 0 {
                None
            } else if n == 3 {
                Some(EndgameRule::Sixteen)
            } else if n <= 2 {
                Some(EndgameRule::Five)
            } else {
                None
            }
        };
        if lone(Color::Black) {
            rule_against(Color::White)
        } else if lone(Color::White) {
            rule_against(Color::Black)
        } else {
            None
        }
    }
}

/// The draw-rule counters of one position in a game.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct PlyState {
    /// Plies since the last man move or capture: repetitions can only reach
    /// this far back, and the 25-move rule counts it.
    pub reversible: u32,
    /// The endgame rule in force and the plies played under it.
    pub endgame: Option<(EndgameRule, u32)>,
}

impl PlyState {
    /// The state at a game's start position (no history before it).
    pub fn initial(pos: &Position) -> PlyState {
        PlyState { reversible: 0, endgame: EndgameRule::of(pos).map(|r| (r, 0)) }
    }

    /// The state after `m` takes `before` to `after`.
    pub fn after(&self, before: &Position, m: &Move, after: &Position) -> PlyState {
        let man_moved = before.kings() >> m.from & 1 == 0;
        let reversible = if man_moved || m.is_capture() { 0 } else { self.reversible + 1 };
        // The count restarts whenever the rule that applies changes (a
        // capture from three pieces to two, say); a promotion that keeps
        // three pieces with a king against a lone king keeps counting.
        let endgame = match (EndgameRule::of(after), self.endgame) {
            (None, _) => None,
            (Some(r), Some((old, n))) if r == old && !m.is_capture() => Some((r, n + 1)),
            (Some(r), _) => Some((r, 0)),
        };
        PlyState { reversible, endgame }
    }
}

/// The draw rules a game is played under.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum DrawRules {
    /// Every rule of the game: in international draughts threefold
    /// repetition, the 25-move king rule and the 16- and 5-move endgame
    /// rules (FMJD); a variant's own rules in a variant.
    #[default]
    Fmjd,
    /// Threefold repetition only, as GWDGUI and other Hub GUIs play: a king
    /// ending goes on until someone wins or repeats.
    Repetition,
}

/// A draw-rules name that is neither `fmjd` nor `repetition`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DrawRulesError(pub String);

impl fmt::Display for DrawRulesError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "draw rules must be fmjd or repetition, not {:?}", self.0)
    }
}

impl std::error::Error for DrawRulesError {}

impl DrawRules {
    /// Its name: `fmjd` or `repetition`.
    pub fn name(self) -> &'static str {
        match self {
            DrawRules::Fmjd => "fmjd",
            DrawRules::Repetition => "repetition",
        }
    }
}

impl std::str::FromStr for DrawRules {
    type Err = DrawRulesError;

    fn from_str(s: &str) -> Result<DrawRules, DrawRulesError> {
        match s.trim().to_ascii_lowercase().as_str() {
            "fmjd" | "all" => Ok(DrawRules::Fmjd),
            "repetition" => Ok(DrawRules::Repetition),
            _ => Err(DrawRulesError(s.to_string())),
        }
    }
}

impl fmt::Display for DrawRules {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A point where the game was drawn by a rule other than repetition and
/// went on all the same (see [`Game::passed_draw`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PassedDraw {
    /// Plies from the game's start to the drawn position.
    pub ply: usize,
    /// The rule that ran out there.
    pub reason: DrawReason,
}

/// Why a game is drawn.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum DrawReason {
    /// The same position with the same side to move occurred three times.
    Repetition,
    /// 25 moves each with only king moves and no capture.
    TwentyFiveMoves,
    /// The 16-move endgame rule.
    SixteenMoves,
    /// The 5-move endgame rule.
    FiveMoves,
    /// Frisian: two kings against one for 7 moves each, or one king against
    /// one for 2 moves each, without a capture.
    FrisianKings,
}

/// The state of a game.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum GameResult {
    /// The game goes on.
    Ongoing,
    /// A side has won: the other has no legal move (in losing draughts: this
    /// side has none; in breakthrough: this side crowned a man).
    Win(Color),
    /// Drawn by rule.
    Draw(DrawReason),
}

impl GameResult {
    /// Whether the game has ended (a win or a draw).
    pub fn is_over(&self) -> bool {
        *self != GameResult::Ongoing
    }

    /// The PDN result: `2-0`, `0-2`, `1-1` or `*`.
    pub fn pdn(&self) -> &'static str {
        match self {
            GameResult::Ongoing => "*",
            GameResult::Win(Color::White) => "2-0",
            GameResult::Win(Color::Black) => "0-2",
            GameResult::Draw(_) => "1-1",
        }
    }
}

impl DrawReason {
    /// The rule in words: `draw by threefold repetition` and the like.
    pub fn describe(self) -> &'static str {
        match self {
            DrawReason::Repetition => "draw by threefold repetition",
            DrawReason::TwentyFiveMoves => "draw by the 25-move king rule",
            DrawReason::SixteenMoves => "draw by the 16-move endgame rule",
            DrawReason::FiveMoves => "draw by the 5-move endgame rule",
            DrawReason::FrisianKings => "draw by the Frisian rule of kings alone",
        }
    }
}

impl fmt::Display for GameResult {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let why = match self {
            GameResult::Ongoing => "game in progress",
            GameResult::Win(Color::White) => "White wins",
            GameResult::Win(Color::Black) => "Black wins",
            GameResult::Draw(reason) => reason.describe(),
        };
        write!(f, "{} ({why})", self.pdn())
    }
}

/// A game: its variant, its start position and every move played since.
#[derive(Clone, Debug)]
pub struct Game {
    variant: Variant,
    draw_rules: DrawRules,
    positions: Vec<Position>,
    states: Vec<PlyState>,
    /// Frisian's king runs after each position (kept for every game: they
    /// cost nothing and a game may change its variant).
    runs: Vec<KingRuns>,
    moves: Vec<Move>,
}

impl Default for Game {
    fn default() -> Self {
        Game::new(Position::start())
    }
}

impl Game {
    /// An international game starting from `start`.
    pub fn new(start: Position) -> Game {
        Game::with_variant(start, Variant::Normal)
    }

    /// A game of `variant` starting from `start`.
    pub fn with_variant(start: Position, variant: Variant) -> Game {
        Game {
            variant,
            draw_rules: DrawRules::Fmjd,
            positions: vec![start],
            states: vec![PlyState::initial(&start)],
            runs: vec![KingRuns::default()],
            moves: Vec::new(),
        }
    }

    /// The same game with Frisian's king runs at its start set to `runs`
    /// (a position that lidraughts sends with its runs); the moves played
    /// since are replayed from them. `Err` with the first move that is then
    /// illegal.
    pub fn with_start_runs(&self, runs: KingRuns) -> Result<Game, MoveError> {
        let mut game = Game::with_variant(self.positions[0], self.variant).with_draw_rules(self.draw_rules);
        game.runs[0] = runs;
        for m in &self.moves {
            game.play_text(&m.to_string())?;
        }
        Ok(game)
    }

    /// The same moves played under `variant`'s rules.
    pub fn in_variant(mut self, variant: Variant) -> Game {
        self.variant = variant;
        self
    }

    /// The game played.
    pub fn variant(&self) -> Variant {
        self.variant
    }

    /// The same game under `rules`.
    pub fn with_draw_rules(mut self, rules: DrawRules) -> Game {
        self.draw_rules = rules;
        self
    }

    /// The draw rules the game was set up with.
    pub fn draw_rules(&self) -> DrawRules {
        self.draw_rules
    }

    /// The first position at which the game was already drawn by a rule
    /// other than repetition (the 25-move, 16-move or 5-move rule), when
    /// there is one and the game is played under [`DrawRules::Fmjd`]: the
    /// current position counts, since being asked to move there means
    /// the game goes on. Whoever played on has shown that they do not
    /// apply that rule.
    pub fn passed_draw(&self) -> Option<PassedDraw> {
        if self.draw_rules != DrawRules::Fmjd || self.variant == Variant::Frisian {
            return None;
        }
        self.states.iter().enumerate().find_map(|(ply, &state)| {
            draw_by_rule(self.variant, DrawRules::Fmjd, state, 0).map(|reason| PassedDraw { ply, reason })
        })
    }

    /// The rule that ends the game with the next move whatever it is, when
    /// the game is played under [`DrawRules::Fmjd`], has not passed a draw
    /// yet, and every legal move draws it, at least one of them by a rule
    /// other than repetition (the last move of a 25-, 16- or 5-move count).
    /// Under the rules every move is then as good as another; a client that
    /// plays on past the draw (see [`Game::passed_draw`]) needs the move
    /// that is best in the game that goes on.
    pub fn draw_point(&self) -> Option<DrawReason> {
        if self.draw_rules != DrawRules::Fmjd
            || self.variant == Variant::Frisian
            || self.passed_draw().is_some()
        {
            return None;
        }
        // Nearly every position: no count is one ply from its end.
        let state = self.state();
        let near = |n: u32, limit: u32| n + 1 >= limit;
        if !near(state.reversible, KING_MOVES_DRAW_PLIES)
            && !state.endgame.is_some_and(|(rule, n)| near(n, rule.limit()))
        {
            return None;
        }
        let legal = self.legal_moves();
        let mut after = self.clone();
        let mut by_rule = None;
        for m in legal.iter() {
            after.push_unchecked(*m);
            let result = after.result();
            after.undo();
            match result {
                GameResult::Draw(DrawReason::Repetition) => {}
                GameResult::Draw(reason) => by_rule = Some(reason),
                _ => return None,
            }
        }
        by_rule
    }

    /// The draw rules the game goes on under: its own, or repetition alone
    /// once it has gone past another rule's draw ([`Game::passed_draw`]) or
    /// stands at one ([`Game::draw_point`]: searched as the game that goes
    /// on, exactly as one move later). What a search for a move in this
    /// game must apply.
    pub fn rules_in_play(&self) -> DrawRules {
        if self.passed_draw().is_some() || self.draw_point().is_some() {
            DrawRules::Repetition
        } else {
            self.draw_rules
        }
    }

    /// A game starting from a FEN or Hub position string.
    pub fn from_text(text: &str) -> Result<Game, FenError> {
        Position::parse(text).map(Game::new)
    }

    /// The position now.
    pub fn position(&self) -> &Position {
        self.positions.last().expect("a game always has its start position")
    }

    /// The start position.
    pub fn start(&self) -> &Position {
        &self.positions[0]
    }

    /// The moves played, in order.
    pub fn moves(&self) -> &[Move] {
        &self.moves
    }

    /// Every position of the game, the start first and the current one last.
    pub fn positions(&self) -> &[Position] {
        &self.positions
    }

    /// The draw-rule counters of the current position.
    pub fn state(&self) -> PlyState {
        *self.states.last().expect("a game always has a state")
    }

    /// Frisian's king runs now (see [`crate::rules::frisian::KingRuns`]).
    pub fn king_runs(&self) -> KingRuns {
        self.runs.last().copied().unwrap_or_default()
    }

    /// The legal moves now, by the variant's rules.
    pub fn legal_moves(&self) -> MoveList {
        match self.variant {
            Variant::Frisian => crate::rules::frisian::legal_moves(self.position(), &self.king_runs()),
            Variant::Killer => {
                let mut list = MoveList::new();
                crate::rules::movegen::generate_killer(self.position(), &mut list);
                list
            }
            _ => legal_moves(self.position()),
        }
    }

    /// Plays a move that must be legal in the current position.
    pub fn play(&mut self, m: Move) -> Result<(), MoveError> {
        let legal = self.legal_moves();
        if !legal.iter().any(|l| *l == m) {
            return Err(MoveError::Illegal {
                text: m.to_string(),
                reason: "not a legal move here".into(),
                legal: legal.iter().map(Move::to_string).collect(),
            });
        }
        self.push_unchecked(m);
        Ok(())
    }

    /// Parses and plays a move given in Hub or PDN notation; the game is
    /// unchanged when the text names no single legal move.
    pub fn play_text(&mut self, text: &str) -> Result<Move, MoveError> {
        let legal = self.legal_moves();
        let m = parse_move_among(self.position(), &legal, self.variant.pdn_paths(), text)?;
        self.push_unchecked(m);
        Ok(m)
    }

    fn push_unchecked(&mut self, m: Move) {
        let pos = *self.position();
        let next = pos.make(&m);
        let state = self.state().after(&pos, &m, &next);
        let runs = self.runs.last().copied().unwrap_or_default().after(&pos, &m);
        self.positions.push(next);
        self.states.push(state);
        self.runs.push(runs);
        self.moves.push(m);
    }

    /// Takes back the last move.
    pub fn undo(&mut self) -> Option<Move> {
        let m = self.moves.pop()?;
        self.positions.pop();
        self.states.pop();
        self.runs.pop();
        Some(m)
    }

    /// How often the current position (same pieces, same side to move) has
    /// occurred in the game, this time included.
    pub fn repetitions(&self) -> u32 {
        let now = self.position();
        let back = self.state().reversible as usize;
        let n = self.positions.len();
        let first = n - 1 - back.min(n - 1);
        self.positions[first..n].iter().rev().step_by(2).filter(|p| *p == now).count() as u32
    }

    /// The result of the game as it stands.
    pub fn result(&self) -> GameResult {
        let pos = self.position();
        let us = pos.side();
        if self.variant == Variant::Breakthrough {
            // The side that crowned has won: the one that moved last (in a
            // set-up position with kings, whoever has one).
            for side in [us.opponent(), us] {
                if pos.kings_of(side) != 0 {
                    return GameResult::Win(side);
                }
            }
        }
        if self.legal_moves().is_empty() {
            return GameResult::Win(if self.variant.no_move_loses() { us.opponent() } else { us });
        }
        if self.variant == Variant::Frisian {
            return frisian_draw(pos, self.state()).map_or(GameResult::Ongoing, GameResult::Draw);
        }
        draw_by_rule(self.variant, self.draw_rules, self.state(), self.repetitions())
            .map_or(GameResult::Ongoing, GameResult::Draw)
    }
}

/// Frisian's draws, as lidraughts plays them (and pydraughts): only kings
/// left, two against one for 7 moves each or one against one for 2 moves
/// each without a capture. Repetition does not draw.
fn frisian_draw(pos: &Position, state: PlyState) -> Option<DrawReason> {
    let counts = |c: Color| (pos.pieces(c).count_ones(), pos.kings_of(c).count_ones());
    let (w, b) = (counts(Color::White), counts(Color::Black));
    let kings_only = w.0 == w.1 && b.0 == b.1;
    let limit = match (w.0, b.0) {
        (1, 1) => 4,
        (2, 1) | (1, 2) => 14,
        _ => return None,
    };
    (kings_only && state.reversible >= limit).then_some(DrawReason::FrisianKings)
}

/// The draw rule, if any, that ends a game of `variant` under `rules` in a
/// position with these counters that has occurred `repetitions` times (the
/// side to move has a legal move).
pub fn draw_by_rule(
    variant: Variant,
    rules: DrawRules,
    state: PlyState,
    repetitions: u32,
) -> Option<DrawReason> {
    if repetitions >= 3 {
        return Some(DrawReason::Repetition);
    }
    if rules == DrawRules::Repetition || !variant.king_draw_rules() {
        return None;
    }
    if let Some((rule, n)) = state.endgame.filter(|_| variant.endgame_draw_rules()) {
        if n >= rule.limit() {
            return Some(match rule {
                EndgameRule::Sixteen => DrawReason::SixteenMoves,
                EndgameRule::Five => DrawReason::FiveMoves,
            });
        }
    }
    if state.reversible >= KING_MOVES_DRAW_PLIES {
        return Some(DrawReason::TwentyFiveMoves);
    }
    None
}
