//! Lazy SMP on a rayon thread pool.
//!
//! The main search runs on the calling thread; `threads - 1` helpers run on
//! an owned rayon pool, each with its own searcher, sharing only the
//! transposition table, the stop flag and the node count. When the main
//! search returns it raises the stop flag, and the scope waits for the
//! helpers. The protocol front end's own threads (the stdin reader) never
//! run on this pool.

use crate::engine::control::SearchControl;

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
    /// and the helpers are waited for.
    pub fn run<R>(
        &self,
        control: &SearchControl,
        helper: impl Fn(usize) + Sync,
        main: impl FnOnce() -> R,
    ) -> R {
        match &self.pool {
            None => main(),
            Some(pool) => pool.in_place_scope(|scope| {
                let helper = &helper;
                for id in 1..self.threads {
                    scope.spawn(move |_| helper(id));
                }
                let r = main();
                control.stop();
                r
            }),
        }
    }
}
