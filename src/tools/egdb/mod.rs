//! The endgame-table tools: generation, verification and probing from the
//! command line. The table format, indexing and probing live with the
//! engine ([`crate::engine::egdb`]).

mod generate;

pub use generate::{generate, verify, GenerateReport, VerifyReport};

use crate::cli::{default_threads, parse_position, EgdbArgs};
use crate::engine::egdb::{self, EgdbError, Tables};
use crate::rules::movegen::legal_moves;
use crate::rules::notation::to_pdn;
use crate::rules::position::Color;

/// What `dammer egdb` does.
#[derive(clap::Subcommand, Debug)]
pub enum EgdbCommand {
    /// Generate every table of up to --pieces pieces into --dir; tables
    /// already there are kept, so an interrupted run resumes.
    Generate {
        /// Most pieces on the board (2 to 7; up to 4 takes seconds, 5 about
        /// 20 minutes on two cores, and each piece more far longer).
        #[arg(long)]
        pieces: usize,
        /// Directory of the table files.
        #[arg(long)]
        dir: std::path::PathBuf,
        /// Threads (default: every core of the machine, unlike analyse, match and the Hub,
        /// which take one unless told).
        #[arg(long, value_parser = crate::engine::options::threads)]
        threads: Option<usize>,
    },
    /// Recompute every quiet position's value from its successors and
    /// report the positions where the table disagrees.
    Verify {
        /// Directory of the table files.
        #[arg(long)]
        dir: std::path::PathBuf,
        /// Most pieces to check (default: every complete piece count).
        #[arg(long)]
        pieces: Option<usize>,
        /// Threads (default: every core of the machine, unlike analyse, match and the Hub,
        /// which take one unless told).
        #[arg(long, value_parser = crate::engine::options::threads)]
        threads: Option<usize>,
    },
    /// Write the tables of --dir into one file, as the browser build
    /// downloads them (web/build.sh).
    Pack {
        /// Directory of the table files.
        #[arg(long)]
        dir: std::path::PathBuf,
        /// Most pieces to take (default: every complete piece count).
        #[arg(long)]
        pieces: Option<usize>,
        /// The file to write.
        #[arg(long)]
        out: std::path::PathBuf,
    },
    /// Print the table value of a position (FEN or Hub string) and of each
    /// of its moves.
    Probe {
        /// The position (the argument, or --fen).
        #[command(flatten)]
        position: crate::cli::PositionArgs,
        /// Directory of the table files.
        #[arg(long)]
        dir: std::path::PathBuf,
        /// Most pieces to use (default: every complete piece count).
        #[arg(long)]
        pieces: Option<usize>,
    },
}

/// Runs `dammer egdb ACTION`.
pub fn run_cli(action: EgdbCommand) -> Result<(), String> {
    match action {
        EgdbCommand::Generate { pieces, dir, threads } => {
            crate::tools::interrupt::catch();
            let threads = threads.unwrap_or_else(default_threads);
            let r = crate::tools::egdb::generate(&dir, pieces, threads, |line| println!("{line}"))
                .map_err(|e| e.to_string())?;
            println!(
                "{} tables generated ({} positions, {:.1} MB on disk), {} kept, in {}; largest pair needed {:.0} MB",
                r.generated,
                r.positions,
                r.bytes as f64 / 1e6,
                r.kept,
                crate::base::duration::format_duration(r.elapsed),
                r.peak_pair_bytes as f64 / 1e6
            );
            Ok(())
        }
        EgdbCommand::Verify { dir, pieces, threads } => {
            crate::tools::interrupt::catch();
            let pieces = match pieces {
                Some(n) => n,
                None => complete_pieces(&dir)?,
            };
            let threads = threads.unwrap_or_else(default_threads);
            let r = crate::tools::egdb::verify(&dir, pieces, threads, |line| println!("{line}"))
                .map_err(|e| e.to_string())?;
            for (fen, stored, expected) in &r.examples {
                println!("inconsistent: {fen} stored {stored}, successors give {expected}");
            }
            if !r.missing.is_empty() {
                let names: Vec<String> = r.missing.iter().map(|s| s.to_string()).collect();
                println!("missing tables (not checked): {}", names.join(" "));
            }
            for e in &r.damaged {
                println!("damaged (not checked): {e}");
            }
            println!(
                "{} tables, {} quiet positions checked, {} inconsistent, {} damaged",
                r.tables,
                r.checked,
                r.errors,
                r.damaged.len()
            );
            for line in incomplete_sets(&dir, pieces) {
                println!("{line}");
            }
            match (r.errors, r.damaged.len()) {
                (0, 0) => Ok(()),
                (e, 0) => Err(format!("{e} inconsistent positions")),
                (0, d) => Err(format!("{d} damaged table files")),
                (e, d) => Err(format!("{e} inconsistent positions, {d} damaged table files")),
            }
        }
        EgdbCommand::Pack { dir, pieces, out } => {
            let tables = load_tables(&dir, pieces)?;
            let bytes = egdb::Pack::write(tables.used());
            std::fs::write(&out, &bytes).map_err(|e| format!("{}: {e}", out.display()))?;
            println!(
                "{}: {} tables up to {} pieces, {} bytes",
                out.display(),
                tables.used().count(),
                tables.max_pieces(),
                bytes.len()
            );
            Ok(())
        }
        EgdbCommand::Probe { position, dir, pieces } => {
            let fen = position.given().ok_or("egdb probe needs a position (FEN or Hub string), or --fen")?;
            let pos = parse_position(fen)?;
            let tables = load_tables(&dir, pieces)?;
            let n = pos.occupied().count_ones();
            let Some(v) = tables.probe(&pos) else {
                return Err(format!(
                    "{n} pieces: the tables in {} cover up to {} pieces",
                    dir.display(),
                    tables.max_pieces()
                ));
            };
            println!("{}", pos);
            println!("{v} for {} to move", if pos.side() == Color::White { "white" } else { "black" });
            for m in legal_moves(&pos).iter() {
                let after =
                    tables.probe(&pos.make(m)).map(|w| w.flip().to_string()).unwrap_or_else(|| "?".into());
                println!("  {:<12} {after}", to_pdn(&pos, m));
            }
            Ok(())
        }
    }
}

/// The largest piece count for which `dir` holds every table.
fn complete_pieces(dir: &std::path::Path) -> Result<usize, String> {
    if !dir.is_dir() {
        return Err(format!("{}: no such directory", dir.display()));
    }
    match egdb::complete_pieces(dir) {
        0 => Err(EgdbError::NoCompleteSet(dir.display().to_string()).to_string()),
        n => Ok(n),
    }
}

/// One line for each piece count above `complete` of which `dir` holds
/// some tables but not all: those are not verified, and the user should
/// know why.
fn incomplete_sets(dir: &std::path::Path, complete: usize) -> Vec<String> {
    let mut lines = Vec::new();
    for n in complete + 1..=egdb::MAX_PIECES {
        let sigs: Vec<_> = egdb::Signature::all(n).into_iter().filter(|s| s.pieces() == n).collect();
        let present = sigs.iter().filter(|s| dir.join(s.file_name()).is_file()).count();
        if present > 0 {
            lines.push(format!(
                "not checked: {present} of {} tables of {n} pieces are there, the set is incomplete \
                 (`dammer egdb generate --pieces {n} --dir {}` completes it)",
                sigs.len(),
                dir.display()
            ));
        }
    }
    lines
}

/// The tables of `dir`, by the engine's one loading policy.
fn load_tables(dir: &std::path::Path, pieces: Option<usize>) -> Result<Tables, String> {
    let args = EgdbArgs { egdb: Some(dir.to_path_buf()), egdb_pieces: pieces };
    Ok(args.tables()?.unwrap_or_default())
}
