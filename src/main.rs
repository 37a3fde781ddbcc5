//! The `dammer` command line: parses arguments and dispatches to the
//! library's front ends (the Hub protocol, the commands for people) and
//! tools. Each command's arguments live next to the code that runs it.

use std::io::IsTerminal;
use std::process::ExitCode;

use clap::{Parser, Subcommand};
use dammer::cli::board::{ColorChoice, Style};
use dammer::cli::{analyse, show};
use dammer::tools::{annotate, bench, book, coverage, egdb, openings, selfplay, testset, tournament, tune};

#[derive(Parser, Debug)]
#[command(name = "dammer", version = dammer::engine::VERSION, about = "An engine for international draughts (FMJD rules)")]
struct Cli {
    /// What to do; without one, Dammer speaks the Hub protocol.
    #[command(subcommand)]
    command: Option<Command>,
    /// Colour the board and the best move: `auto` (on a terminal, unless
    /// NO_COLOR is set), `always` or `never`.
    #[arg(long, global = true, value_enum, default_value_t = ColorChoice::Auto)]
    color: ColorChoice,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Speak the Hub protocol on standard input and output (for GUIs and
    /// tournament managers).
    Hub {
        /// Write a log of the protocol (and anything RUST_LOG asks for) to this file.
        #[arg(long)]
        log_file: Option<std::path::PathBuf>,
    },
    /// Play over DXP (DamExchange, TCP), the protocol of engine
    /// tournaments: as server (--listen) or client (--connect), as
    /// initiator (--initiate) or follower.
    Dxp {
        #[command(flatten)]
        dxp: dammer::dxp::DxpArgs,
        #[command(flatten)]
        engine: dammer::cli::EngineArgs,
        /// Write a log of the conversation (and anything RUST_LOG asks for) to this file.
        #[arg(long)]
        log_file: Option<std::path::PathBuf>,
    },
    /// Search a position and print each iteration, then the best move.
    Analyse(analyse::AnalyseArgs),
    /// Annotate games: every move searched, scores and best lines as PDN
    /// comments, mistakes (?) and blunders (??) with the better line, strong
    /// only moves (!), a summary per player, an evaluation graph (--svg).
    Annotate(annotate::AnnotateArgs),
    /// Search a fixed set of positions to a fixed depth (speed and
    /// regression check); the last line is `<nodes> nodes <nps> nps`.
    Bench(bench::BenchArgs),
    /// Play Dammer against itself at a fixed node budget and store every
    /// quiet position with the search score and the game result (training
    /// data for `tune`). Rerunning the command resumes; a larger --games
    /// extends the file.
    Selfplay(selfplay::SelfplayArgs),
    /// Search every position of a self-play data file again with more
    /// nodes and write them with the new scores (deeper labels for `tune`),
    /// or make data of a PDN file's games (a match's: every quiet position of
    /// a finished game, searched, with the game's result). Rerunning the
    /// command resumes.
    Relabel(selfplay::RelabelArgs),
    /// Join self-play data files (the shards of one run) into one, games in
    /// number order: the same file one run would make.
    Merge(selfplay::MergeArgs),
    /// What data files cover: positions, games, distinct positions (by stage) and the pattern
    /// inputs' rows met, optionally at doublings of the data as it grows.
    Coverage(coverage::CoverageArgs),
    /// Fit the pattern evaluation's weights to self-play games (logistic
    /// regression with Adam); prints the loss per epoch and writes the
    /// weights file after every epoch.
    Tune(tune::TuneArgs),
    /// Test sets from self-play data (positions with a known winner) and
    /// how often an evaluation favours the winner at a shallow depth.
    Testset {
        #[command(subcommand)]
        action: testset::TestsetCommand,
    },
    /// Play engine-vs-engine games between Hub engines: a match (two
    /// engines), a gauntlet or a round robin, with clocks, adjudication,
    /// PDN output and Elo statistics. Ctrl-C stops and reports.
    Match(tournament::cli::MatchArgs),
    /// Make an opening set that cuts draws: every position a few plies
    /// beyond a set of openings, searched deeply, kept where one side has
    /// an edge within a band (each is then played with both colours).
    Openings(openings::OpeningsArgs),
    /// The opening book: build one by drop-out expansion (resumable), or
    /// show a position's book moves.
    Book {
        #[command(subcommand)]
        action: book::BookCommand,
    },
    /// Endgame tables: generate, verify and probe win/draw/loss bitbases.
    Egdb {
        #[command(subcommand)]
        action: egdb::EgdbCommand,
    },
    /// Count the leaves of the legal move tree (move generator test and benchmark).
    Perft(show::PerftArgs),
    /// Show a position: board, FEN, Hub string, legal moves and game result.
    Show(show::ShowArgs),
    /// Print the legal moves (Hub notation, one position a line) of each
    /// position given, or of each line of standard input with `-`. A
    /// position may be followed by `;` and moves to play from it first.
    Legal(show::LegalArgs),
}

/// Logging goes to stderr only when RUST_LOG asks for it (Hub clients read
/// stderr as protocol), or to a file when one is given.
fn init_logging(log_file: Option<&std::path::Path>) -> Result<(), String> {
    let mut builder =
        env_logger::Builder::from_env(env_logger::Env::default().default_filter_or(if log_file.is_some() {
            "debug"
        } else {
            "off"
        }));
    if let Some(path) = log_file {
        let file = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(path)
            .map_err(|e| format!("cannot open log file {}: {e}", path.display()))?;
        builder.target(env_logger::Target::Pipe(Box::new(file)));
    }
    builder.init();
    Ok(())
}

/// Lets a closed standard output end the process quietly, as it ends any
/// Unix tool (`dammer legal - < many | head`): Rust ignores SIGPIPE, and
/// printing to a closed pipe would then panic. The Hub front end keeps the
/// signal ignored: it handles a GUI that went away itself.
#[cfg(unix)]
fn default_sigpipe() {
    extern "C" {
        fn signal(signum: i32, handler: usize) -> usize;
    }
    const SIGPIPE: i32 = 13;
    const SIG_DFL: usize = 0;
    // SAFETY: `signal` is the C library's, with its C signature; restoring
    // the default action of SIGPIPE touches no memory of ours and runs
    // before any other thread exists.
    unsafe {
        signal(SIGPIPE, SIG_DFL);
    }
}

#[cfg(not(unix))]
fn default_sigpipe() {}

fn main() -> ExitCode {
    let matches = <Cli as clap::CommandFactory>::command().get_matches();
    let cli = match <Cli as clap::FromArgMatches>::from_arg_matches(&matches) {
        Ok(cli) => cli,
        Err(e) => e.exit(),
    };
    // The derive API flattens repeated `--engine a b --engine c d`; the
    // grouping per engine comes from the raw occurrences.
    let engine_groups: Vec<Vec<String>> = matches
        .subcommand_matches("match")
        .and_then(|m| m.get_occurrences::<String>("engines"))
        .map(|occ| occ.map(|group| group.cloned().collect()).collect())
        .unwrap_or_default();
    if cli.command.is_none() && std::io::stdin().is_terminal() {
        // A person who typed `dammer` alone; a GUI's pipe never sees this.
        eprintln!(
            "dammer: speaking the Hub protocol (for GUIs) on this terminal; type `quit` to leave. \
             For analysis try `dammer analyse`, for everything `dammer --help`"
        );
    }
    let style = Style::new(cli.color.enabled());
    let command = cli.command.unwrap_or(Command::Hub { log_file: None });
    if !matches!(command, Command::Hub { .. }) {
        default_sigpipe();
    }
    let log_file = match &command {
        Command::Hub { log_file } | Command::Dxp { log_file, .. } => log_file.clone(),
        _ => None,
    };
    if let Err(msg) = init_logging(log_file.as_deref()) {
        eprintln!("dammer: {msg}");
        return ExitCode::from(2);
    }
    let outcome = match command {
        Command::Hub { .. } => {
            dammer::hub::run();
            Ok(())
        }
        Command::Dxp { dxp, engine, .. } => engine.engine().and_then(|mut e| dammer::dxp::run(&dxp, &mut e)),
        Command::Analyse(args) => analyse::run(&args, style),
        Command::Annotate(args) => annotate::run_cli(&args),
        Command::Bench(args) => bench::run_cli(&args),
        Command::Selfplay(args) => selfplay::run_cli(args),
        Command::Relabel(args) => selfplay::relabel_cli(args),
        Command::Merge(args) => selfplay::merge_cli(args),
        Command::Coverage(args) => coverage::run_cli(args),
        Command::Tune(args) => tune::run_cli(args),
        Command::Testset { action } => testset::run_cli(action),
        Command::Book { action } => book::run_cli(action),
        Command::Match(args) => tournament::cli::run_cli(args, &engine_groups),
        Command::Openings(args) => openings::run_cli(args),
        Command::Egdb { action } => egdb::run_cli(action),
        Command::Perft(args) => show::perft(&args),
        Command::Show(args) => show::show(&args, style),
        Command::Legal(args) => show::legal(&args),
    };
    match outcome {
        Ok(()) => ExitCode::SUCCESS,
        Err(msg) => {
            eprintln!("dammer: {msg}");
            ExitCode::from(2)
        }
    }
}
