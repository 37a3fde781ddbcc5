//! Lazy SMP on a rayon thread pool.
//!
//! The main search runs on the calling thread; `threads - 1` helpers run on
//! an owned rayon pool, each with its own searcher, sharing only the
//! transposition table, the stop flag and the node count. When the main
//! search returns it raises the stop flag, and the scope waits for the
//! helpers. The protocol front end's own threads (the stdin reader) never
//! run on this pool.
//!
//! Each helper hands back its own last completed iteration, and
//! [`vote`] picks the move to play from all of them: a helper that went a
//! depth further than the main thread is not wasted.

use std::sync::OnceLock;

use crate::engine::control::SearchControl;
use crate::engine::score::{Score, TB_BAND};
use crate::engine::search::RootResult;

/// The helper threads of the search.
#[derive(Debug)]
pub struct ThreadPool {
    pool: Option<rayon::ThreadPool>,
    threads: usize,
}

impl ThreadPool {
    /// A pool for `threads` search threads in all (the caller's included).
    /// Falls back to one thread if the helpers cannot be started.
    pub fn new(threads: usize) -> ThreadPool {
        let helpers = threads.saturating_sub(1);
        if helpers == 0 {
            return ThreadPool { pool: None, threads: 1 };
        }
        match rayon::ThreadPoolBuilder::new()
            .num_threads(helpers)
            .thread_name(|i| format!("dammer-search-{}", i + 1))
            .stack_size(16 << 20)
            .build()
        {
            Ok(pool) => ThreadPool { pool: Some(pool), threads },
            Err(e) => {
                log::warn!("cannot start {helpers} search helpers ({e}); searching with one thread");
                ThreadPool { pool: None, threads: 1 }
            }
        }
    }

    /// Number of search threads, the caller's included.
    pub fn len(&self) -> usize {
        self.threads
    }

    /// Runs `main` on the calling thread and `helper(id)` for ids
    /// `1..threads` on the pool. When `main` returns, the search is stopped
    /// and the helpers are waited for. Returns what `main` returned and
    /// what each helper returned, in id order.
    pub fn run<R, H: Send + Sync>(
        &self,
        control: &SearchControl,
        helper: impl Fn(usize) -> H + Sync,
        main: impl FnOnce() -> R,
    ) -> (R, Vec<H>) {
        match &self.pool {
            None => (main(), Vec::new()),
            Some(pool) => {
                // One slot a helper, each written once at its end: nothing
                // shared on the way.
                let slots: Vec<OnceLock<H>> = (1..self.threads).map(|_| OnceLock::new()).collect();
                let r = pool.in_place_scope(|scope| {
                    let helper = &helper;
                    for (slot, id) in slots.iter().zip(1..) {
                        scope.spawn(move |_| {
                            let _ = slot.set(helper(id));
                        });
                    }
                    let r = main();
                    control.stop();
                    r
                });
                (r, slots.into_iter().filter_map(OnceLock::into_inner).collect())
            }
        }
    }
}

/// How much a move's votes count for its score over the worst thread's:
/// hundredths of a man added to every thread's margin, so that the worst
/// thread's move still gets votes for its depth.
const VOTE_MARGIN: Score = 10;

/// The result to play from the main thread's and the helpers' last
/// completed iterations, and the id of the thread it comes from (0: the
/// main thread).
///
/// Each thread votes for its move with its depth times its score's margin
/// over the worst thread's score (Stockfish's vote). The move with most
/// votes wins, from the thread that searched it deepest; a proven win
/// (from the tables or with a distance) is taken as the shortest one any
/// thread found. With one thread, or multi-PV (whose lines are the main
/// thread's), the main thread's result stands.
pub(crate) fn vote(main: RootResult, helpers: Vec<RootResult>, multipv: usize) -> (RootResult, usize) {
    let mut all: Vec<(usize, RootResult)> = vec![(0, main)];
    if multipv <= 1 {
        all.extend(
            helpers
                .into_iter()
                .zip(1..)
                .map(|(r, id)| (id, r))
                .filter(|(_, r)| r.best.is_some() && r.depth > 0),
        );
    }
    if all.len() == 1 || all[0].1.best.is_none() {
        return (all.swap_remove(0).1, 0);
    }
    let worst = all.iter().map(|(_, r)| r.score).min().unwrap_or(0);
    let votes = |m| -> i64 {
        all.iter()
            .filter(|(_, r)| r.best == m)
            .map(|(_, r)| i64::from(r.score - worst + VOTE_MARGIN) * i64::from(r.depth))
            .sum()
    };
    let mut best = 0;
    for k in 1..all.len() {
        let (b, c) = (&all[best].1, &all[k].1);
        let better = if b.score >= TB_BAND {
            c.score > b.score
        } else if c.score >= TB_BAND {
            true
        } else if c.score <= -TB_BAND {
            false
        } else if c.best == b.best {
            c.depth > b.depth
        } else {
            votes(c.best) > votes(b.best)
        };
        if better {
            best = k;
        }
    }
    let (id, r) = all.swap_remove(best);
    (r, id)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::score::{TB_WIN, WIN};
    use crate::rules::movegen::legal_moves;
    use crate::rules::position::Position;

    fn result(k: usize, depth: u32, score: Score) -> RootResult {
        let m = legal_moves(&Position::start()).as_slice()[k];
        RootResult { best: Some(m), pv: vec![m], score, depth, ..RootResult::default() }
    }

    #[test]
    fn one_thread_or_multi_pv_plays_the_main_threads_result() {
        let main = result(0, 12, 5);
        assert_eq!(vote(main.clone(), vec![], 1), (main.clone(), 0));
        assert_eq!(vote(main.clone(), vec![result(1, 14, 50)], 3), (main.clone(), 0));
    }

    #[test]
    fn a_deeper_helper_is_played() {
        // The same move, a depth further: the helper's score and line.
        assert_eq!(vote(result(0, 12, 5), vec![result(0, 13, -3)], 1), (result(0, 13, -3), 1));
        // Another move, a depth further and better.
        assert_eq!(vote(result(0, 12, 5), vec![result(1, 13, 20)], 1), (result(1, 13, 20), 1));
        // Another move, a depth further but much worse: the main thread's move.
        assert_eq!(vote(result(0, 12, 40), vec![result(1, 13, -20)], 1), (result(0, 12, 40), 0));
        // Shallower and no better: the main thread's.
        assert_eq!(vote(result(0, 12, 5), vec![result(1, 10, 5)], 1), (result(0, 12, 5), 0));
        // Two helpers agree on a move: their votes add up.
        let (r, id) = vote(result(0, 12, 10), vec![result(1, 12, 8), result(1, 11, 8)], 1);
        assert_eq!((r.best, id), (result(1, 0, 0).best, 1));
    }

    #[test]
    fn wins_go_to_the_shortest_and_unfinished_helpers_do_not_vote() {
        assert_eq!(vote(result(0, 12, 30), vec![result(1, 9, WIN - 15)], 1), (result(1, 9, WIN - 15), 1));
        assert_eq!(vote(result(0, 12, WIN - 21), vec![result(1, 14, WIN - 15)], 1).1, 1);
        assert_eq!(vote(result(0, 12, WIN - 15), vec![result(1, 14, WIN - 21)], 1).1, 0);
        assert_eq!(vote(result(0, 12, 0), vec![result(1, 14, TB_WIN - 3)], 1).1, 1);
        // A helper's loss is never played over a move that is not lost.
        assert_eq!(vote(result(0, 12, -200), vec![result(1, 14, -(WIN - 9))], 1).1, 0);
        // A helper stopped before its first iteration has no vote.
        let none = RootResult::default();
        assert_eq!(vote(result(0, 3, 0), vec![none, result(1, 0, 80)], 1).1, 0);
    }
}
