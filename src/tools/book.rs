//! `dammer book`: building the opening book by drop-out expansion, and
//! showing what it holds.
//!
//! The book grows as a tree (a DAG: transpositions are shared) from its
//! roots, the start position and the 2-move ballots by default. Each new
//! position gets a search of a fixed number of nodes; an expanded
//! position's value is the minimax of its successors' values. The next
//! position to expand is the one whose path from a root costs least,
//! where each move on the path costs how much worse than the best it
//! scores plus a fixed price per ply (drop-out expansion): the main lines
//! grow deep and the alternatives within reach of the best grow too,
//! so that the book has moves to vary between. The book file is written
//! every few expansions and at the end, and a rerun goes on from it.

use std::cmp::Reverse;
use std::collections::{BinaryHeap, HashMap, HashSet, VecDeque};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use crate::base::duration::format_duration;
use crate::engine::book::{Book, BookError, Entry};
use crate::engine::eval::Evaluation;
use crate::engine::score::Score;
use crate::engine::time::Limits;
use crate::engine::Engine;
use crate::rules::game::Game;
use crate::rules::movegen::legal_moves;
use crate::rules::openings;
use crate::rules::position::Position;

/// How a book is built.
#[derive(Clone, Debug)]
pub struct BuildConfig {
    /// The book file (read first when it exists: the build goes on).
    pub out: PathBuf,
    /// Where the book starts.
    pub roots: Vec<Position>,
    /// Nodes searched for each new position.
    pub nodes: u64,
    /// Positions to expand in this run (on top of those already expanded).
    pub expansions: usize,
    /// Expand no position further than this many plies from a root.
    pub max_ply: u32,
    /// Cost of a ply, in hundredths of a man of drop-out: with 10, a
    /// line one ply deeper weighs as much as a move 0.10 worse.
    pub ply_cost: Score,
    /// Search threads.
    pub threads: usize,
    /// Transposition table, MiB.
    pub hash_mb: usize,
    /// The evaluation the searches use.
    pub eval: Evaluation,
}

#[derive(Clone, Debug)]
struct Node {
    pos: Position,
    searched: Score,
    expanded: bool,
}

/// A book under construction.
struct Tree {
    nodes: HashMap<u64, Node>,
    roots: Vec<u64>,
}

/// What the tree's minimax says of each position.
struct Values {
    value: HashMap<u64, Score>,
    ply: HashMap<u64, u32>,
}

impl Tree {
    /// The tree a book holds for these roots: every book position reached
    /// from a root through expanded positions.
    fn from_book(book: &Book, roots: &[Position]) -> Tree {
        let mut tree = Tree { nodes: HashMap::new(), roots: Vec::new() };
        let mut queue: VecDeque<Position> = VecDeque::new();
        for root in roots {
            if let Some(e) = book.get(root.key()) {
                if !tree.nodes.contains_key(&root.key()) {
                    tree.insert(*root, e);
                    queue.push_back(*root);
                }
            }
        }
        while let Some(pos) = queue.pop_front() {
            if !tree.nodes[&pos.key()].expanded {
                continue;
            }
            let mut whole = true;
            for m in legal_moves(&pos).iter() {
                let next = pos.make(m);
                match book.get(next.key()) {
                    Some(e) if !tree.nodes.contains_key(&next.key()) => {
                        tree.insert(next, e);
                        queue.push_back(next);
                    }
                    Some(_) => {}
                    None => whole = false,
                }
            }
            if let Some(n) = tree.nodes.get_mut(&pos.key()) {
                n.expanded = whole;
            }
        }
        tree.roots = roots.iter().map(|r| r.key()).filter(|k| tree.nodes.contains_key(k)).collect();
        tree
    }

    fn insert(&mut self, pos: Position, e: &Entry) {
        self.nodes.insert(pos.key(), Node { pos, searched: Score::from(e.searched), expanded: e.expanded() });
    }

    /// Minimax values and plies from the roots.
    fn values(&self) -> Values {
        let mut value = HashMap::with_capacity(self.nodes.len());
        for &r in &self.roots {
            self.value_of(r, &mut value);
        }
        let mut ply = HashMap::with_capacity(self.nodes.len());
        let mut queue: VecDeque<u64> = VecDeque::new();
        for &r in &self.roots {
            ply.insert(r, 0);
            queue.push_back(r);
        }
        while let Some(k) = queue.pop_front() {
            let n = &self.nodes[&k];
            if !n.expanded {
                continue;
            }
            let p = ply[&k] + 1;
            for m in legal_moves(&n.pos).iter() {
                let c = n.pos.make(m).key();
                if self.nodes.contains_key(&c) && !ply.contains_key(&c) {
                    ply.insert(c, p);
                    queue.push_back(c);
                }
            }
        }
        Values { value, ply }
    }

    fn value_of(&self, key: u64, memo: &mut HashMap<u64, Score>) -> Score {
        if let Some(&v) = memo.get(&key) {
            return v;
        }
        let n = &self.nodes[&key];
        let mut v = n.searched;
        if n.expanded {
            let mut best = None;
            for m in legal_moves(&n.pos).iter() {
                let c = n.pos.make(m).key();
                if self.nodes.contains_key(&c) {
                    let s = -self.value_of(c, memo);
                    best = Some(best.map_or(s, |b: Score| b.max(s)));
                }
            }
            v = best.unwrap_or(v);
        }
        memo.insert(key, v);
        v
    }

    /// The position to expand next: the cheapest leaf (see the module
    /// comment), or `None` when every leaf is at `max_ply` or ended.
    fn next_leaf(&self, values: &Values, max_ply: u32, ply_cost: Score) -> Option<u64> {
        let mut heap: BinaryHeap<Reverse<(i64, u64)>> = self.roots.iter().map(|&r| Reverse((0, r))).collect();
        let mut done: HashSet<u64> = HashSet::new();
        while let Some(Reverse((cost, k))) = heap.pop() {
            if !done.insert(k) {
                continue;
            }
            let n = &self.nodes[&k];
            let moves = legal_moves(&n.pos);
            if !n.expanded {
                if values.ply[&k] < max_ply && !moves.is_empty() {
                    return Some(k);
                }
                continue;
            }
            let v = values.value[&k];
            for m in moves.iter() {
                let c = n.pos.make(m).key();
                if let Some(&cv) = values.value.get(&c) {
                    let drop = i64::from(v - (-cv)).max(0);
                    heap.push(Reverse((cost + drop + i64::from(ply_cost), c)));
                }
            }
        }
        None
    }

    fn to_book(&self, nodes: u64) -> Book {
        let values = self.values();
        let clamp = |s: Score| s.clamp(i16::MIN.into(), i16::MAX.into()) as i16;
        let entries = self
            .nodes
            .iter()
            .filter_map(|(&k, n)| {
                let ply = *values.ply.get(&k)?;
                Some(Entry::new(
                    k,
                    clamp(values.value[&k]),
                    clamp(n.searched),
                    ply.min(255) as u8,
                    n.expanded,
                    self.roots.contains(&k),
                ))
            })
            .collect();
        Book::new(entries, nodes)
    }
}

/// What a build did.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BuildSummary {
    /// Positions in the book.
    pub positions: usize,
    /// Expanded positions (those with book moves).
    pub expanded: usize,
    /// Expansions made in this run.
    pub expansions: usize,
    /// Deepest expanded position, plies from a root.
    pub depth: u32,
}

/// Builds (or extends) the book `cfg.out`; `progress` gets a line now and
/// then; `stop` is asked between expansions whether to stop early. The
/// file is written every 10 expansions and at the end.
pub fn build(
    cfg: &BuildConfig,
    progress: &mut dyn FnMut(&str),
    stop: &dyn Fn() -> bool,
) -> Result<BuildSummary, String> {
    let shown = cfg.out.display();
    let mut tree = if cfg.out.exists() {
        let book = Book::load(&cfg.out).map_err(|e| format!("{shown}: {e}"))?;
        if book.nodes() != cfg.nodes {
            return Err(format!(
                "{shown} was built with {} nodes a position, not {}: give --nodes {} to go on with it",
                book.nodes(),
                cfg.nodes,
                book.nodes()
            ));
        }
        Tree::from_book(&book, &cfg.roots)
    } else {
        Tree { nodes: HashMap::new(), roots: Vec::new() }
    };
    let mut engine = Engine::new(cfg.threads, cfg.hash_mb);
    engine.set_evaluation(cfg.eval.clone());
    // Analysis: a position with one legal move is searched too (a game
    // search plays it at once and scores it by the static evaluation, which
    // knows nothing of the capture that follows).
    let limits = Limits { nodes: Some(cfg.nodes), analysis: true, ..Limits::default() };
    let mut search = |pos: &Position| -> Score {
        if legal_moves(pos).is_empty() {
            return crate::engine::score::lost_in(0);
        }
        engine.search_quietly(&Game::new(*pos), &limits).score
    };
    let old = tree.nodes.len();
    for root in &cfg.roots {
        let k = root.key();
        tree.nodes.entry(k).or_insert_with(|| Node { pos: *root, searched: search(root), expanded: false });
        if !tree.roots.contains(&k) {
            tree.roots.push(k);
        }
    }
    progress(&format!(
        "{shown}: {} positions there, {} roots, {} expansions to make at {} nodes a position",
        old,
        tree.roots.len(),
        cfg.expansions,
        cfg.nodes
    ));
    let started = Instant::now();
    let mut made = 0;
    while made < cfg.expansions && !stop() {
        let values = tree.values();
        let Some(k) = tree.next_leaf(&values, cfg.max_ply, cfg.ply_cost) else {
            progress("every leaf is at the ply limit or ended: nothing more to expand");
            break;
        };
        let pos = tree.nodes[&k].pos;
        for m in legal_moves(&pos).iter() {
            let next = pos.make(m);
            tree.nodes.entry(next.key()).or_insert_with(|| Node {
                pos: next,
                searched: search(&next),
                expanded: false,
            });
        }
        if let Some(n) = tree.nodes.get_mut(&k) {
            n.expanded = true;
        }
        made += 1;
        if made % 10 == 0 || made == cfg.expansions {
            tree.to_book(cfg.nodes).save(&cfg.out).map_err(|e| format!("{shown}: {e}"))?;
            let per = started.elapsed().as_secs_f64() / made as f64;
            progress(&format!(
                "{made} / {} expansions, {} positions, last one {} plies past a root, {} left",
                cfg.expansions,
                tree.nodes.len(),
                values.ply[&k],
                format_duration(Duration::from_secs_f64(per * (cfg.expansions - made) as f64))
            ));
        }
    }
    let book = tree.to_book(cfg.nodes);
    book.save(&cfg.out).map_err(|e| format!("{shown}: {e}"))?;
    Ok(BuildSummary {
        positions: book.len(),
        expanded: book.entries().iter().filter(|e| e.expanded()).count(),
        expansions: made,
        depth: book.entries().iter().filter(|e| e.expanded()).map(|e| u32::from(e.ply)).max().unwrap_or(0),
    })
}

/// Book positions reachable from `pos` through expanded positions
/// (`pos` included).
pub fn count_below(book: &Book, pos: &Position) -> usize {
    let mut seen = HashSet::new();
    let mut stack = vec![*pos];
    while let Some(p) = stack.pop() {
        let Some(e) = book.get(p.key()) else { continue };
        if !seen.insert(p.key()) || !e.expanded() {
            continue;
        }
        for m in legal_moves(&p).iter() {
            stack.push(p.make(m));
        }
    }
    seen.len()
}

/// The roots named on the command line: `start`, `ballots` (the 79 2-move
/// ballots shipped for matches) or an openings file (FEN lines or PDN).
pub fn roots(names: &[String]) -> Result<Vec<Position>, String> {
    let mut roots = Vec::new();
    for name in names {
        let openings = match name.as_str() {
            "start" => {
                roots.push(Position::start());
                continue;
            }
            "ballots" => openings::parse_openings(openings::DEFAULT_OPENINGS, false)?,
            path => openings::load_openings(Path::new(path))?,
        };
        roots.extend(openings.iter().map(|o| o.position()));
    }
    let mut seen = HashSet::new();
    roots.retain(|p| seen.insert(p.key()));
    if roots.is_empty() {
        return Err("no roots to build the book from".into());
    }
    Ok(roots)
}

/// `dammer book` subcommands.
#[derive(clap::Subcommand, Debug)]
pub enum BookCommand {
    /// Build or extend an opening book by drop-out expansion (resumable:
    /// rerun the command to add more expansions).
    Build {
        /// The book file to write (and go on with when it exists).
        #[arg(long)]
        out: PathBuf,
        /// Where the book starts: `start`, `ballots` (the 2-move ballots) or
        /// an openings file; comma-separated.
        #[arg(long, value_delimiter = ',', default_value = "start,ballots")]
        roots: Vec<String>,
        /// Nodes searched for each new position.
        #[arg(long, default_value_t = 2_000_000, value_parser = crate::engine::options::nodes)]
        nodes: u64,
        /// Positions to expand in this run.
        #[arg(long, default_value_t = 1000)]
        expansions: usize,
        /// Expand no position further than this many plies from a root.
        #[arg(long, default_value_t = 30, value_parser = clap::value_parser!(u32).range(1..=255))]
        max_ply: u32,
        /// Drop-out price of a ply, hundredths of a man.
        #[arg(long, default_value_t = 10, value_parser = clap::value_parser!(i32).range(0..=10_000))]
        ply_cost: i32,
        /// Search threads (default: every core of the machine, unlike analyse, match and the
        /// Hub, which take one unless told).
        #[arg(long, value_parser = crate::engine::options::threads)]
        threads: Option<usize>,
        /// Transposition table, MiB.
        #[arg(long, default_value_t = crate::engine::DEFAULT_HASH_MB, value_parser = crate::engine::options::hash_mb)]
        hash: usize,
        /// The evaluation.
        #[command(flatten)]
        eval: crate::cli::EvalArgs,
    },
    /// Show a position's book moves with their scores and how many book
    /// positions lie below each.
    Show {
        /// The position (default: the initial position).
        #[command(flatten)]
        position: crate::cli::PositionArgs,
        /// Moves to play first, separated by spaces (Hub or PDN notation).
        #[arg(long, default_value = "")]
        moves: String,
        /// The book file (default: the embedded book).
        #[arg(long)]
        book: Option<PathBuf>,
    },
}

/// Runs `dammer book`.
pub fn run_cli(cmd: BookCommand) -> Result<(), String> {
    match cmd {
        BookCommand::Build {
            out,
            roots: names,
            nodes,
            expansions,
            max_ply,
            ply_cost,
            threads,
            hash,
            eval,
        } => {
            let threads =
                threads.unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()));
            let cfg = BuildConfig {
                out,
                roots: roots(&names)?,
                nodes,
                expansions,
                max_ply,
                ply_cost,
                threads,
                hash_mb: hash,
                eval: eval.evaluation()?,
            };
            crate::tools::interrupt::catch();
            let started = Instant::now();
            let s = build(&cfg, &mut |line| eprintln!("{line}"), &crate::tools::interrupt::requested)?;
            println!(
                "{}: {} positions, {} expanded (the deepest {} plies past a root: the start or a ballot); \
                 {} expansions in {}",
                cfg.out.display(),
                s.positions,
                s.expanded,
                s.depth,
                s.expansions,
                format_duration(started.elapsed())
            );
            Ok(())
        }
        BookCommand::Show { position, moves, book } => {
            let book = match &book {
                Some(path) => Book::load(path).map_err(|e: BookError| format!("{}: {e}", path.display()))?,
                None => Book::embedded(),
            };
            let game = crate::cli::game_from(position.text(), &moves)?;
            let pos = *game.position();
            let expanded = book.entries().iter().filter(|e| e.expanded()).count();
            println!(
                "book: {} positions, {} expanded, the deepest {} plies past a root (the start position or a \
                 2-move ballot), {} nodes a position",
                book.len(),
                expanded,
                book.entries().iter().filter(|e| e.expanded()).map(|e| e.ply).max().unwrap_or(0),
                book.nodes()
            );
            println!("{}", pos.to_fen());
            let Some(e) = book.get(pos.key()) else {
                println!("not in the book");
                return Ok(());
            };
            println!(
                "in the book {} plies past a root: value {:+.2}, own search {:+.2} (men, side to move)",
                e.ply,
                f64::from(e.value) / 100.0,
                f64::from(e.searched) / 100.0
            );
            match book.moves(&pos) {
                None => println!("no book moves (a leaf of the book)"),
                Some(moves) => {
                    println!("{:<10} {:>7} {:>9} {:>9}", "move", "score", "searched", "positions");
                    for b in moves {
                        println!(
                            "{:<10} {:>+7.2} {:>+9.2} {:>9}",
                            crate::rules::notation::to_pdn(&pos, &b.mv),
                            f64::from(b.score) / 100.0,
                            f64::from(-i32::from(b.next.searched)) / 100.0,
                            count_below(&book, &pos.make(&b.mv))
                        );
                    }
                }
            }
            Ok(())
        }
    }
}
