//! End-to-end tests of `dammer match`: real games between Dammer processes,
//! and fake engines that fail in each way a real one can.

use crate::common::temp_dir;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use dammer::rules::game::GameResult;
use dammer::rules::openings::{parse_openings, DEFAULT_OPENINGS};
use dammer::rules::pdn;
use dammer::tools::tournament::client::{EngineSpec, Protocol};
use dammer::tools::tournament::{self, Config, TimeControl};

const DAMMER: &str = env!("CARGO_BIN_EXE_dammer");

/// A Hub engine in POSIX sh that starts properly and then, on `go`, runs `on_go`.
fn fake_engine(dir: &Path, name: &str, on_go: &str) -> EngineSpec {
    let path = dir.join(format!("{name}.sh"));
    let script = format!(
        "while IFS= read -r line; do\n  case \"$line\" in\n    hub) echo \"id name={name}\"; echo \"param name=threads value=1 type=int min=1 max=8\"; echo wait ;;\n    init) echo ready ;;\n    ping) echo pong ;;\n    go*) {on_go} ;;\n    quit) exit 0 ;;\n  esac\ndone\n"
    );
    std::fs::write(&path, script).unwrap();
    EngineSpec {
        name: name.into(),
        command: vec!["sh".into(), path.display().to_string()],
        protocol: Protocol::Hub,
        dir: None,
        params: vec![],
    }
}

fn dammer(name: &str) -> EngineSpec {
    EngineSpec {
        name: name.into(),
        command: vec![DAMMER.into(), "hub".into()],
        protocol: Protocol::Hub,
        dir: None,
        params: vec![("hash".into(), "8".into())],
    }
}

fn config(engines: Vec<EngineSpec>, games: usize, pdn: Option<PathBuf>) -> Config {
    Config {
        engines,
        gauntlet: true,
        tc: TimeControl::MoveTime(0.02),
        margin: Duration::from_millis(500),
        gui_overhead: Duration::ZERO,
        draw_rules: tournament::DrawRules::Fmjd,
        openings: parse_openings(DEFAULT_OPENINGS, false).unwrap(),
        games: Some(games),
        concurrency: 2,
        pdn,
        resume: false,
        shard: (1, 1),
        max_plies: Some(300),
        draw: None,
        resign: None,
        sprt: None,
        event: "test".into(),
        variant: dammer::rules::variant::Variant::Normal,
    }
}

#[test]
fn faulty_engines_lose_and_are_restarted() {
    let dir = temp_dir("match-faults");
    let engines = vec![
        dammer("Dammer"),
        fake_engine(&dir, "illegal", "echo \"done move=1-50\""),
        fake_engine(&dir, "hangs", ":"),
        fake_engine(&dir, "exits", "exit 3"),
    ];
    let pdn_path = dir.join("games.pdn");
    let summary = tournament::run(&config(engines, 4, Some(pdn_path.clone())), &mut |_| {}).unwrap();
    assert_eq!(summary.games, 12);
    for p in &summary.pairings {
        // Dammer (the first engine) wins every game, with both colours.
        assert_eq!((p.tally.wins, p.tally.draws, p.tally.losses), (4, 0, 0), "{p:?}");
        assert_eq!(p.tally.pairs, [0, 0, 0, 0, 2]);
    }
    // One fault per game, named after the engine and what happened.
    assert_eq!(summary.faults.len(), 12, "{:?}", summary.faults);
    for (name, what) in [("illegal", "illegal move"), ("hangs", "lost on time"), ("exits", "exited")] {
        let n = summary.faults.iter().filter(|f| f.contains(name) && f.contains(what)).count();
        assert_eq!(n, 4, "{name}: {:?}", summary.faults);
    }
    let games = pdn::read(&std::fs::read_to_string(&pdn_path).unwrap()).unwrap();
    assert_eq!(games.len(), 12);
    for g in &games {
        let termination = g.tag("Termination").unwrap();
        assert!(["illegal move", "time forfeit", "engine failure"].contains(&termination), "{termination}");
        let dammer_white = g.tag("White") == Some("Dammer");
        assert_eq!(g.result.as_deref(), Some(if dammer_white { "2-0" } else { "0-2" }));
        // The faulty side never moves: at most Dammer's first move is in the game.
        let game = g.replay().unwrap();
        assert_eq!(game.moves().len(), usize::from(dammer_white));
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn dammer_against_dammer_writes_valid_pdn() {
    let dir = temp_dir("match-selfplay");
    let pdn_path = dir.join("games.pdn");
    let cfg = Config {
        tc: TimeControl::Clock { moves: None, time: 2.0, inc: 0.02 },
        ..config(vec![dammer("A"), dammer("B")], 4, Some(pdn_path.clone()))
    };
    let mut lines = Vec::new();
    let summary = tournament::run(&cfg, &mut |l| lines.push(l.to_string())).unwrap();
    assert_eq!(summary.games, 4);
    assert!(summary.faults.is_empty(), "{:?}", summary.faults);
    assert_eq!(lines.len(), 4, "{lines:?}");
    let t = summary.pairings[0].tally;
    assert_eq!(t.games(), 4);
    assert_eq!(t.pairs.iter().sum::<u32>(), 2);
    let games = pdn::read(&std::fs::read_to_string(&pdn_path).unwrap()).unwrap();
    assert_eq!(games.len(), 4);
    let openings = parse_openings(DEFAULT_OPENINGS, false).unwrap();
    for (i, g) in games.iter().enumerate() {
        let game = g.replay().unwrap();
        // Games 1-2 use the first opening, 3-4 the second.
        let round: usize = g.tag("Round").unwrap().parse().unwrap();
        assert_eq!(*game.start(), openings[(round - 1) / 2].start, "game {i}");
        assert_eq!(g.tag("PlyCount").unwrap().parse::<usize>().unwrap(), game.moves().len());
        assert_eq!(g.tag("TimeControl"), Some("2+0.02"));
        let termination = g.tag("Termination").unwrap();
        let result = g.result.as_deref().unwrap();
        // A game that ended by the rules ends in the position the PDN replays to.
        match game.result() {
            GameResult::Ongoing => assert!(termination.starts_with("adjudication"), "{termination}"),
            r => assert_eq!(r.pdn(), result, "{termination}"),
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn score_adjudication_ends_games() {
    // Two engines that claim a draw at every move: drawn by adjudication
    // once both have said so for 3 moves each, from ply 4 on.
    let dir = temp_dir("match-adjudication");
    let mut cfg = config(vec![dammer("A"), dammer("B")], 2, Some(dir.join("d.pdn")));
    cfg.draw = Some(tournament::DrawAdjudication { after_ply: 4, score: 100.0, moves: 3 });
    let summary = tournament::run(&cfg, &mut |_| {}).unwrap();
    assert_eq!(summary.pairings[0].tally.draws, 2);
    for g in pdn::read(&std::fs::read_to_string(dir.join("d.pdn")).unwrap()).unwrap() {
        assert_eq!(g.tag("Termination"), Some("adjudication: scores agree on a draw"));
        // Six scored moves; a forced move, played at once, has no score.
        assert!((6..=12).contains(&g.moves.len()), "{}", g.moves.len());
    }
    // A side whose engine reports a lost score while the other reports a
    // won one loses by adjudication.
    let mut cfg = config(vec![dammer("A"), dammer("B")], 2, Some(dir.join("r.pdn")));
    cfg.resign = Some(tournament::ResignAdjudication { score: -1000.0, moves: 1 });
    let summary = tournament::run(&cfg, &mut |_| {}).unwrap();
    // With a bound of -1000 every score counts as both winning and losing,
    // so the first engine to move loses at once.
    let games = pdn::read(&std::fs::read_to_string(dir.join("r.pdn")).unwrap()).unwrap();
    assert_eq!(summary.games, 2);
    for g in &games {
        assert_eq!(g.tag("Termination"), Some("adjudication: scores agree on a win"));
        assert_eq!(g.moves.len(), 2);
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn command_line_match_reports_and_rejects_bad_input() {
    let dir = temp_dir("match-cli");
    let pdn_path = dir.join("cli.pdn");
    let out = Command::new(DAMMER)
        .args(["match", "--engine", "name=One", &format!("cmd={DAMMER} hub"), "option.hash=8"])
        .args(["--engine", "name=Two", &format!("cmd={DAMMER}"), "--movetime", "0.02", "--games", "2"])
        .args(["--pdn", pdn_path.to_str().unwrap(), "--sprt", "-5", "5", "0.05", "0.05"])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{text} {}", String::from_utf8_lossy(&out.stderr));
    assert!(text.contains("2 of 2 games played"), "{text}");
    assert!(text.contains("One vs Two"), "{text}");
    assert!(text.contains("SPRT elo0=-5 elo1=5"), "{text}");
    assert_eq!(pdn::read(&std::fs::read_to_string(&pdn_path).unwrap()).unwrap().len(), 2);
    for (args, needle) in [
        (
            vec!["--engine", "cmd=/nonexistent/engine", "--engine", "cmd=x", "--movetime", "1"],
            "could not start",
        ),
        (vec!["--engine", "name=a", "--engine", "cmd=x", "--movetime", "1"], "cmd="),
        (vec!["--engine", &format!("cmd={DAMMER}"), "--engine", &format!("cmd={DAMMER}")], "time control"),
        (
            vec!["--engine", &format!("cmd={DAMMER}"), "--engine", &format!("cmd={DAMMER}"), "--tc", "1+x"],
            "time control",
        ),
        (
            vec![
                "--engine",
                &format!("cmd={DAMMER}"),
                "--engine",
                &format!("cmd={DAMMER}"),
                "--movetime",
                "1",
                "--openings",
                "/nonexistent",
            ],
            "cannot read",
        ),
    ] {
        let out = Command::new(DAMMER).arg("match").args(&args).output().unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
        assert!(err.contains(needle), "{args:?}: {err}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_match_resumes_from_its_pdn_file() {
    // Games that end at the first move (every score counts as a win for
    // both sides), so that the results are decisive and quick.
    let dir = temp_dir("match-resume");
    let path = dir.join("m.pdn");
    let quick = |games: usize, names: [&str; 2], resume: bool| {
        let mut cfg = config(vec![dammer(names[0]), dammer(names[1])], games, Some(path.clone()));
        cfg.gauntlet = false;
        cfg.resign = Some(tournament::ResignAdjudication { score: -1000.0, moves: 1 });
        cfg.resume = resume;
        cfg
    };
    let first = tournament::run(&quick(4, ["A", "B"], false), &mut |_| {}).unwrap();
    assert_eq!(first.games, 4);
    // Six asked for: the four in the file count, two are played.
    let mut lines = Vec::new();
    let resumed = tournament::run(&quick(6, ["A", "B"], true), &mut |l| lines.push(l.to_string())).unwrap();
    assert!(lines[0].starts_with("resumed 4 games from"), "{lines:?}");
    assert_eq!((resumed.games, resumed.resumed, lines.len()), (6, 4, 3), "{lines:?}");
    let t = resumed.pairings[0].tally;
    assert_eq!((t.games(), t.pairs.iter().sum::<u32>()), (6, 3));
    // The first mover loses every game: each opening pair is one win each.
    assert_eq!((t.wins, t.losses, t.pairs[2]), (3, 3, 3));
    let games = pdn::read(&std::fs::read_to_string(&path).unwrap()).unwrap();
    let mut rounds: Vec<usize> = games.iter().map(|g| g.tag("Round").unwrap().parse().unwrap()).collect();
    rounds.sort_unstable();
    assert_eq!(rounds, [1, 2, 3, 4, 5, 6]);
    // Nothing left to play.
    let again = tournament::run(&quick(6, ["A", "B"], true), &mut |_| {}).unwrap();
    assert_eq!((again.games, again.resumed), (6, 6));
    assert_eq!(pdn::read(&std::fs::read_to_string(&path).unwrap()).unwrap().len(), 6);
    // Another match's file is refused, and left as it was.
    let err = tournament::run(&quick(6, ["A", "C"], true), &mut |_| {}).unwrap_err();
    assert!(err.contains("another match"), "{err}");
    let mut other_tc = quick(6, ["A", "B"], true);
    other_tc.tc = TimeControl::MoveTime(0.05);
    let err = tournament::run(&other_tc, &mut |_| {}).unwrap_err();
    assert!(err.contains("time control"), "{err}");
    assert_eq!(pdn::read(&std::fs::read_to_string(&path).unwrap()).unwrap().len(), 6);
    // Resuming from a file that does not exist yet starts the match.
    let fresh = tournament::run(
        &Config { pdn: Some(dir.join("new.pdn")), ..quick(2, ["A", "B"], true) },
        &mut |_| {},
    )
    .unwrap();
    assert_eq!((fresh.games, fresh.resumed), (2, 0));
    let _ = std::fs::remove_dir_all(&dir);
}

/// An engine of the early Hub dialect (Scan 2.0's) in POSIX sh: it logs
/// every line it reads to `log`, keeps the `pos` and `move` lines, and on
/// `go` plays the first legal move (from `dammer legal`) with an `info`
/// line of positional fields, as Scan writes them; an only move gets a
/// depth-0 line, as Scan plays it unsearched.
fn early_engine(dir: &Path, log: &Path) -> EngineSpec {
    let path = dir.join("early.sh");
    let script = format!(
        r#"pos=""; moves=""
while IFS= read -r line; do
  echo "$line" >> '{log}'
  set -- $line
  case "$1" in
    hub) echo "name Early"; echo "author Test"; echo wait ;;
    init) echo ready ;;
    ping) echo pong ;;
    pos) pos="W${{2#?}}"; [ "${{2%"${{2#?}}"}}" = b ] && pos="B${{2#?}}"; moves="" ;;
    move) moves="$moves $2" ;;
    go)
      set -- $('{dammer}' legal "$pos;$moves")
      if [ $# -eq 1 ]; then echo "info 0 0.0 0 0 0.00 0.0 $1"; else echo "info 3 3.0 -25 100 0.01 0.0 $1"; fi
      echo "move $1" ;;
    quit) exit 0 ;;
  esac
done
"#,
        log = log.display(),
        dammer = DAMMER
    );
    std::fs::write(&path, script).unwrap();
    EngineSpec {
        name: "Early".into(),
        command: vec!["sh".into(), path.display().to_string()],
        protocol: Protocol::EarlyHub,
        dir: None,
        params: vec![("book".into(), "false".into())],
    }
}

#[test]
fn an_early_hub_engine_plays_whole_games() {
    let dir = temp_dir("match-early");
    let log = dir.join("early.log");
    let pdn_path = dir.join("early.pdn");
    let mut own = dammer("Dammer");
    // No book: its moves would be scored at depth 0 too.
    own.params.push(("book".into(), "false".into()));
    let mut cfg = config(vec![own, early_engine(&dir, &log)], 2, Some(pdn_path.clone()));
    cfg.concurrency = 1;
    cfg.max_plies = Some(40);
    let summary = tournament::run(&cfg, &mut |_| {}).unwrap();
    assert_eq!(summary.games, 2);
    assert!(summary.faults.is_empty(), "{:?}", summary.faults);
    let sent = std::fs::read_to_string(&log).unwrap();
    let lines: Vec<&str> = sent.lines().collect();
    // Its parameters with `set` before `init`, `new` before each game.
    assert_eq!(&lines[..3], ["hub", "set book false", "init"], "{sent}");
    assert_eq!(lines.iter().filter(|l| **l == "new").count(), 2, "{sent}");
    // Before each `go`: the game's start (side to move in lower case), a
    // `move` a ply since, then the move time in milliseconds.
    let games = pdn::read(&std::fs::read_to_string(&pdn_path).unwrap()).unwrap();
    let openings = parse_openings(DEFAULT_OPENINGS, false).unwrap();
    let start = openings[0].start.to_hub();
    let first_go = lines.iter().position(|l| *l == "go").unwrap();
    let before: Vec<&str> =
        lines[..first_go].iter().rev().take_while(|l| !l.starts_with("pos ")).copied().collect();
    assert_eq!(before.first(), Some(&"time 20"), "{sent}");
    let pos_line = lines[first_go - before.len() - 1];
    assert_eq!(pos_line, format!("pos {}{}", start[..1].to_lowercase(), &start[1..]), "{sent}");
    assert!(before[1..].iter().all(|l| l.starts_with("move ")), "{sent}");
    for g in &games {
        // Whole games of legal moves (the early engine's captures among
        // them, written with every captured square), and its scores read
        // from the positional field in hundredths of a man.
        let game = g.replay().unwrap();
        assert_eq!(game.moves().len(), 40 + openings[0].moves.len());
    }
    let text = std::fs::read_to_string(&pdn_path).unwrap();
    assert!(text.contains("-0.25/3"), "{text}");
    assert!(!text.contains("/0 "), "an unsearched move got a score: {text}");
    // A clock is sent as `level MOVES-TO-GO MS INC-MS`.
    cfg.tc = TimeControl::Clock { moves: Some(40), time: 2.0, inc: 0.05 };
    cfg.pdn = None;
    cfg.games = Some(1);
    std::fs::remove_file(&log).unwrap();
    tournament::run(&cfg, &mut |_| {}).unwrap();
    let sent = std::fs::read_to_string(&log).unwrap();
    assert!(sent.lines().any(|l| l == "level 40 2000 50"), "{sent}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// `dammer openings` writes a set `dammer match` reads: each kept position
/// is a legal position two plies beyond its opening, its score in the band
/// asked for; a bad band or output path is refused before any search.
#[test]
fn the_openings_tool_writes_a_set_matches_read() {
    let dir = temp_dir("openings-tool");
    let from = dir.join("from.fen");
    std::fs::write(&from, "W:W31-50:B1-20\n").unwrap();
    let out = dir.join("edge.fen");
    let run = |min: &str, max: &str, path: &Path| {
        Command::new(DAMMER)
            .args(["openings", "--from", from.to_str().unwrap(), "--plies", "2", "--depth", "4"])
            .args(["--min", min, "--max", max, "--out", path.to_str().unwrap()])
            .output()
            .unwrap()
    };
    let all = run("0", "100", &out);
    assert!(all.status.success(), "{}", String::from_utf8_lossy(&all.stderr));
    let text = std::fs::read_to_string(&out).unwrap();
    let set = dammer::rules::openings::load_openings(&out).unwrap();
    // Every position two plies from the start where White has a choice.
    assert!(set.len() > 50 && set.len() <= 81, "{}", set.len());
    assert!(String::from_utf8_lossy(&all.stdout).contains(&format!("kept {} of {}", set.len(), set.len())));
    for o in &set {
        let pieces = o.start.to_fen();
        assert!(pieces.starts_with("W:"), "{pieces}");
    }
    // A band keeps only the scores inside it (comment lines say each score).
    let none = run("50", "60", &dir.join("none.fen"));
    assert!(none.status.success());
    let kept = std::fs::read_to_string(dir.join("none.fen")).unwrap();
    assert!(kept.lines().all(|l| l.starts_with('#')), "{kept}");
    assert!(text.lines().filter(|l| l.starts_with("# ")).count() > set.len());
    for (min, max, path) in [("0.5", "0.2", out.clone()), ("0", "1", dir.join("no/such/dir.fen"))] {
        let bad = run(min, max, &path);
        assert_eq!(bad.status.code(), Some(2), "{min} {max}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}
