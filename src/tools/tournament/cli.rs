//! `dammer match` on the command line: its arguments and their one
//! validation into a [`Config`].

use super::client::EngineSpec;
use super::stats::Sprt;
use super::{check_engines, report, Config, DrawAdjudication, DrawRules, ResignAdjudication, TimeControl};
use crate::engine::options;
use crate::rules::openings::{load_openings, parse_openings, DEFAULT_OPENINGS};

/// The `match` arguments as given.
#[derive(clap::Args, Debug)]
pub struct MatchArgs {
    /// An engine: `name=NAME cmd="PROGRAM hub" [dir=DIR] [option.PARAM=VALUE ...]`
    /// for a Hub engine, `name=NAME dxp-client="PROGRAM ARGS"` for a DXP
    /// engine that connects to the runner (DXP_HOST/DXP_PORT in its
    /// environment) or `name=NAME dxp-connect=HOST:PORT` for one already
    /// listening (DXP engines need a clock without increment, e.g. --tc 300);
    /// give it once per engine (at least two).
    #[arg(long = "engine", num_args = 1.., required = true, value_name = "KEY=VALUE", action = clap::ArgAction::Append)]
    pub engines: Vec<String>,
    /// The first engine plays each of the others (default: every pair plays).
    #[arg(long)]
    pub gauntlet: bool,
    /// Fixed seconds per move.
    #[arg(long, conflicts_with = "tc", allow_negative_numbers = true, value_parser = options::movetime_arg)]
    pub movetime: Option<std::time::Duration>,
    /// Game clock `[moves/]seconds[+increment]`, e.g. `10+0.1` or `40/60`.
    #[arg(long)]
    pub tc: Option<String>,
    /// Milliseconds an engine may exceed its time before it loses on time.
    #[arg(long, default_value = "100", value_parser = margin_arg)]
    pub margin: std::time::Duration,
    /// Milliseconds charged to an engine's clock on every move on top of
    /// the time it took, as a GUI's latency is (e.g. `100ms`; clock time
    /// controls only).
    #[arg(long, default_value = "0", value_parser = gui_overhead_arg)]
    pub gui_overhead: std::time::Duration,
    /// Draw rules: `all` (threefold repetition, the 25-move and the
    /// 16/5-move rules) or `repetition` (threefold repetition only, as some
    /// GUIs play; --max-plies still ends a game).
    #[arg(long, default_value = "all", value_parser = ["all", "fmjd", "repetition"])]
    pub draw_rules: String,
    /// Openings: one FEN/Hub position a line, or a PDN file (default:
    /// the 79 two-move ballots shipped in bench/openings-2move.fen).
    #[arg(long)]
    pub openings: Option<std::path::PathBuf>,
    /// Games per pairing (default: every opening with both colours).
    #[arg(long, value_parser = options::games)]
    pub games: Option<u64>,
    /// Games played at once.
    #[arg(long, default_value_t = 1, value_parser = options::concurrency)]
    pub concurrency: usize,
    /// Append every game to this PDN file.
    #[arg(long)]
    pub pdn: Option<std::path::PathBuf>,
    /// Count the games the --pdn file already holds (written by an earlier
    /// run of this same match: engines, time control and openings) and
    /// play only the rest; a long match or SPRT goes on where it stopped.
    #[arg(long, requires = "pdn")]
    pub resume: bool,
    /// Play only shard K of N: the opening pairs whose number is K-1
    /// modulo N (both games of a pair stay together), for a cluster's job
    /// array. Each task writes its own --pdn; the shards' files put
    /// together (`cat`) and given to the same match with --resume report
    /// the whole match.
    #[arg(long, default_value = "1/1", value_parser = crate::tools::selfplay::shard_arg)]
    pub shard: (u32, u32),
    /// Adjudicate a draw after this many plies (0: never).
    #[arg(long, default_value_t = 400)]
    pub max_plies: usize,
    /// Draw when, from ply PLY on, both engines report |score| <= SCORE
    /// men for MOVES moves each.
    #[arg(long, num_args = 3, value_names = ["PLY", "SCORE", "MOVES"])]
    pub draw_adjudication: Option<Vec<f64>>,
    /// A side loses when its engine reports <= -SCORE and the opponent
    /// >= SCORE men for MOVES moves each.
    #[arg(long, num_args = 2, value_names = ["SCORE", "MOVES"])]
    pub resign_adjudication: Option<Vec<f64>>,
    /// Stop a two-engine match when a sequential probability ratio test decides.
    #[arg(long, num_args = 4, value_names = ["ELO0", "ELO1", "ALPHA", "BETA"], allow_negative_numbers = true)]
    pub sprt: Option<Vec<f64>>,
    /// The PDN Event tag.
    #[arg(long, default_value = "Dammer match")]
    pub event: String,
    /// The game: normal, bt (breakthrough) or losing (antidraughts). Hub
    /// engines are told with `set-param name=variant`; the others play only
    /// the international game.
    #[arg(long, default_value = "normal", value_parser = crate::cli::variant)]
    pub variant: crate::rules::variant::Variant,
}

fn margin_arg(text: &str) -> Result<std::time::Duration, options::OptionError> {
    options::milliseconds("margin", text)
}

fn gui_overhead_arg(text: &str) -> Result<std::time::Duration, options::OptionError> {
    options::milliseconds("gui-overhead", text)
}

/// `engine_groups` are the `--engine` occurrences, one per engine (the
/// derived `a.engines` is the same tokens flattened).
fn config(a: MatchArgs, engine_groups: &[Vec<String>]) -> Result<Config, String> {
    let mut engines =
        engine_groups.iter().map(|tokens| EngineSpec::parse(tokens)).collect::<Result<Vec<_>, _>>()?;
    if engines.len() < 2 {
        return Err("give at least two engines (--engine ... --engine ...)".into());
    }
    if a.variant != crate::rules::variant::Variant::Normal {
        for e in &mut engines {
            if e.protocol != super::client::Protocol::Hub {
                return Err(format!("{} is not a Hub engine: only Hub engines play {}", e.name, a.variant));
            }
            if !e.params.iter().any(|(n, _)| n == "variant") {
                e.params.push(("variant".into(), a.variant.name().into()));
            }
        }
    }
    let draw_rules: DrawRules =
        a.draw_rules.parse().map_err(|e: crate::rules::game::DrawRulesError| e.to_string())?;
    if draw_rules != DrawRules::Fmjd {
        // The engines are told which rules the runner applies (those that
        // declare `draw-rules`: the others never hear of it).
        for e in &mut engines {
            if !e.params.iter().any(|(n, _)| n == "draw-rules") {
                e.params.push(("draw-rules".into(), draw_rules.name().into()));
            }
        }
    }
    let tc = match (a.movetime, a.tc) {
        (Some(t), None) => TimeControl::MoveTime(t.as_secs_f64()),
        (None, Some(text)) => TimeControl::parse_clock(&text)?,
        _ => return Err("give a time control: --movetime SECONDS or --tc [moves/]seconds[+increment]".into()),
    };
    let openings = match &a.openings {
        Some(path) => load_openings(path)?,
        None => parse_openings(DEFAULT_OPENINGS, false)?,
    };
    let positive = |v: f64, what: &str| {
        if v.is_finite() && v >= 0.0 {
            Ok(v)
        } else {
            Err(format!("{what} must be a non-negative number, not {v}"))
        }
    };
    let draw = match a.draw_adjudication {
        Some(v) => Some(DrawAdjudication {
            after_ply: positive(v[0], "the draw adjudication ply")? as usize,
            score: positive(v[1], "the draw adjudication score")?,
            moves: positive(v[2], "the draw adjudication move count")?.max(1.0) as u32,
        }),
        None => None,
    };
    let resign = match a.resign_adjudication {
        Some(v) => Some(ResignAdjudication {
            score: positive(v[0], "the resign adjudication score")?,
            moves: positive(v[1], "the resign adjudication move count")?.max(1.0) as u32,
        }),
        None => None,
    };
    let sprt = match a.sprt {
        Some(v) => {
            let s = Sprt { elo0: v[0], elo1: v[1], alpha: v[2], beta: v[3] };
            let rate = |x: f64| x > 0.0 && x < 0.5;
            if !(s.elo0.is_finite() && s.elo1.is_finite() && s.elo0 < s.elo1 && rate(s.alpha) && rate(s.beta))
            {
                return Err("--sprt needs ELO0 < ELO1 and ALPHA, BETA between 0 and 0.5".into());
            }
            if engines.len() != 2 {
                return Err("--sprt is for a match between two engines".into());
            }
            if a.shard.1 > 1 {
                return Err("--sprt decides on the whole match: not with --shard (run the shards, then the SPRT over their games with --resume)".into());
            }
            Some(s)
        }
        None => None,
    };
    Ok(Config {
        engines,
        gauntlet: a.gauntlet,
        tc,
        margin: a.margin,
        gui_overhead: a.gui_overhead,
        draw_rules,
        openings,
        games: a.games.map(|g| g as usize),
        concurrency: a.concurrency,
        pdn: a.pdn,
        resume: a.resume,
        shard: a.shard,
        max_plies: (a.max_plies > 0).then_some(a.max_plies),
        draw,
        resign,
        sprt,
        event: a.event,
        variant: a.variant,
    })
}

fn run(cfg: &Config) -> Result<(), String> {
    check_engines(cfg)?;
    crate::tools::interrupt::catch();
    let summary = super::run(cfg, &mut |line| println!("{line}"))?;
    for line in report(&summary, cfg.sprt) {
        println!("{line}");
    }
    Ok(())
}

/// Runs `dammer match`; `engine_groups` are the `--engine` occurrences.
pub fn run_cli(args: MatchArgs, engine_groups: &[Vec<String>]) -> Result<(), String> {
    config(args, engine_groups).and_then(|cfg| run(&cfg))
}
