//! Endgame tables: the tables up to 4 pieces are generated once for this
//! test run, then checked against known results (each confirmed by an
//! independent brute-force search), by `verify`, against a plain search on
//! random positions, and in play: the engine with tables converts won
//! endings against itself.

use std::path::{Path, PathBuf};
use std::sync::{Arc, OnceLock};

use crate::common::{loses_within, wins_within, Rng};
use dammer::engine::egdb::{self, position_at, Signature, Tables, Wdl};
use dammer::engine::score::{TB_WIN, WIN, WIN_BAND};
use dammer::engine::time::Limits;
use dammer::engine::Engine;
use dammer::rules::game::{EndgameRule, Game, GameResult};
use dammer::rules::movegen::{has_capture, legal_moves, opponent_has_capture};
use dammer::rules::position::{Color, Position};

const PIECES: usize = 4;

/// The directory of freshly generated tables up to [`PIECES`] pieces.
fn table_dir() -> &'static Path {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    DIR.get_or_init(|| {
        let dir =
            PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(format!("egdb-test-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let report = dammer::tools::egdb::generate(&dir, PIECES, 2, |_| {}).expect("generation");
        assert_eq!(report.kept, 0);
        assert_eq!(report.generated, Signature::all(PIECES).len());
        dir
    })
}

fn tables() -> &'static Tables {
    static TABLES: OnceLock<Tables> = OnceLock::new();
    TABLES.get_or_init(|| {
        let (tables, missing) = Tables::load(table_dir(), PIECES).unwrap();
        assert!(missing.is_empty(), "missing {missing:?}");
        assert_eq!(tables.max_pieces(), PIECES);
        tables
    })
}

fn probe(fen: &str) -> Wdl {
    tables().probe(&Position::parse(fen).unwrap()).unwrap()
}

/// Every position of a signature with the given side to move.
fn positions(sig: Signature, side: Color) -> impl Iterator<Item = Position> {
    (0..sig.size()).filter_map(move |i| position_at(&sig, i)).map(move |p| match side {
        Color::White => p,
        Color::Black => p.flipped(),
    })
}

#[test]
fn lone_king_against_lone_king_draws_unless_a_capture_is_forced() {
    let kk = Signature { us_men: 0, us_kings: 1, them_men: 0, them_kings: 1 };
    let mut counts = [0; 3];
    for side in [Color::White, Color::Black] {
        for pos in positions(kk, side) {
            // Independent: plain minimax. Every decided king-against-king
            // position is decided by a capture within three plies (a king
            // trapped in the double corner or on the long diagonal).
            let expected = if wins_within(&pos, 3) {
                Wdl::Win
            } else if loses_within(&pos, 4) {
                Wdl::Loss
            } else {
                Wdl::Draw
            };
            let got = tables().probe(&pos).unwrap();
            assert_eq!(got, expected, "{}", pos.to_fen());
            counts[got as usize] += 1;
        }
    }
    // All three results occur, draws by far the most.
    assert!(counts.iter().all(|&c| c > 0), "{counts:?}");
    assert!(counts[Wdl::Draw as usize] > 4 * (counts[0] + counts[2]), "{counts:?}");
    assert_eq!(probe("W:WK46:BK5"), Wdl::Loss, "every move stays on the long diagonal");
    assert_eq!(probe("W:WK46:BK4"), Wdl::Draw);
}

#[test]
fn three_kings_cannot_beat_a_king_on_the_long_diagonal() {
    let long_diagonal = [46u8, 41, 37, 32, 28, 23, 19, 14, 10, 5];
    let sig = Signature { us_men: 0, us_kings: 3, them_men: 0, them_kings: 1 };
    let (mut draws, mut checked, mut shots) = (0, 0, 0);
    let mut rng = Rng::new(7);
    for pos in positions(sig, Color::White) {
        let black = pos.kings_of(Color::Black).trailing_zeros() as u8;
        let on_diagonal = long_diagonal.iter().any(|&s| dammer::rules::bitboard::square_to_bit(s) == black);
        // Quiet for both sides: no capture now and none the lone king could
        // make if it were its turn.
        if !on_diagonal || has_capture(&pos) || opponent_has_capture(&pos) {
            continue;
        }
        checked += 1;
        let v = tables().probe(&pos);
        if v == Some(Wdl::Draw) {
            draws += 1;
            // Spot checks with an independent search: no quick forced win.
            if rng.below(200) == 0 {
                assert!(!wins_within(&pos, 3), "{}", pos.to_fen());
            }
        } else {
            assert_eq!(v, Some(Wdl::Win), "{}", pos.to_fen());
            // The exceptions are shots: a sacrifice that forces the lone
            // king off the diagonal. A plain search finds them.
            if rng.below(100) == 0 {
                let r = Engine::new(1, 8)
                    .search_quietly(&Game::new(pos), &Limits { depth: Some(9), ..Limits::default() });
                assert!(r.score >= WIN_BAND, "{} search {}", pos.to_fen(), r.score);
                shots += 1;
            }
        }
    }
    assert!(checked > 10_000, "{checked}");
    // The draw is the rule (94% of these positions).
    assert!(draws * 100 >= checked * 90, "{draws} of {checked}");
    assert!(shots > 10, "{shots}");
    assert_eq!(probe("W:WK1,K2,K3:BK46"), Wdl::Draw);
    // Off the diagonal, with the kings in place, it is a win.
    assert_eq!(probe("W:WK28,K32,K33:BK10"), Wdl::Win);
    assert_eq!(probe("B:WK28,K32,K33:BK10"), Wdl::Draw, "the king reaches the long diagonal");
}

#[test]
fn verify_finds_every_table_consistent() {
    let report = dammer::tools::egdb::verify(table_dir(), PIECES, 2, |_| {}).unwrap();
    assert_eq!(report.tables, Signature::all(PIECES).len());
    assert!(report.missing.is_empty());
    assert!(report.checked > 20_000_000, "{}", report.checked);
    assert_eq!(report.errors, 0, "{:?}", report.examples);
}

#[test]
fn verify_reports_a_damaged_table() {
    // A table with one value flipped (and a valid checksum) must fail.
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(format!("egdb-bad-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    for sig in Signature::all(3) {
        std::fs::copy(table_dir().join(sig.file_name()), dir.join(sig.file_name())).unwrap();
    }
    let sig = Signature { us_men: 1, us_kings: 0, them_men: 0, them_kings: 1 };
    let good = dammer::engine::egdb::Table::read(&dir, sig).unwrap().unwrap();
    let victim = (0..sig.size())
        .find(|&i| position_at(&sig, i).is_some_and(|p| !has_capture(&p) && good.get(i) == Wdl::Draw))
        .unwrap();
    let bad = dammer::engine::egdb::Table::compress(sig, sig.size(), |i| {
        Some(if i == victim { Wdl::Win } else { good.get(i) })
    });
    bad.write(&dir).unwrap();
    let report = dammer::tools::egdb::verify(&dir, 3, 2, |_| {}).unwrap();
    assert!(report.errors >= 1, "{report:?}");
    good.write(&dir).unwrap();
    // Damage to the bytes themselves is caught by the checksum. The file is
    // named and left out with the piece count that needs it; everything
    // else stays in use, and verify goes on to check every other table.
    let damage = |sig: Signature| {
        let path = dir.join(sig.file_name());
        let mut bytes = std::fs::read(&path).unwrap();
        let n = bytes.len();
        bytes[n / 2] ^= 0x40;
        std::fs::write(&path, bytes).unwrap();
        path.display().to_string()
    };
    let three = Signature { us_men: 2, us_kings: 0, them_men: 0, them_kings: 1 };
    let name = damage(three);
    let (loaded, missing) = Tables::load(&dir, 3).unwrap();
    assert!(missing.is_empty());
    assert_eq!(loaded.damaged().len(), 1);
    let why = loaded.damaged()[0].to_string();
    assert!(why.contains(&name) && why.contains("checksum"), "{why}");
    assert_eq!(loaded.max_pieces(), 2);
    let opened = egdb::open(&dir, egdb::Pieces::UpTo(3)).unwrap();
    assert_eq!(opened.tables.max_pieces(), 2);
    assert!(opened.notes.iter().any(|n| n.contains(&name)), "{:?}", opened.notes);
    let report = dammer::tools::egdb::verify(&dir, 3, 2, |_| {}).unwrap();
    assert_eq!(report.damaged.len(), 1, "{report:?}");
    assert_eq!(report.tables, Signature::all(3).len() - 1);
    assert_eq!(report.errors, 0);
    // The command line: verify names the file and fails; probe and analyse
    // name it and go on with the rest.
    let dammer = env!("CARGO_BIN_EXE_dammer");
    let d = dir.to_str().unwrap();
    let out = std::process::Command::new(dammer).args(["egdb", "verify", "--dir", d]).output().unwrap();
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stdout).contains(&name));
    let out = std::process::Command::new(dammer)
        .args(["egdb", "probe", "W:WK46:BK4", "--dir", d])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(String::from_utf8_lossy(&out.stdout).contains("draw"));
    assert!(String::from_utf8_lossy(&out.stderr).contains(&name));
    let out = std::process::Command::new(dammer)
        .args(["analyse", "--depth", "4", "--egdb", d, "W:WK46:BK4"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    // Without a usable 2-piece set nothing is left: an error that names the file.
    let name = damage(sig);
    let err = egdb::open(&dir, egdb::Pieces::UpTo(3)).unwrap_err().to_string();
    assert!(err.contains(&name) && err.contains("checksum"), "{err}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// A random position with `n` pieces (men and kings of both colours).
fn random_small_position(rng: &mut Rng, n: usize) -> Option<Position> {
    let mut white = 0u64;
    let mut black = 0u64;
    let mut kings = 0u64;
    let sides = [Color::White, Color::Black];
    for k in 0..n {
        let colour = if k < 2 { sides[k] } else { sides[rng.below(2)] };
        let s = 1 + rng.below(50) as u8;
        let b = dammer::rules::bitboard::square_bb(s);
        if (white | black) & b != 0 {
            return None;
        }
        if rng.below(3) == 0 {
            kings |= b;
        }
        match colour {
            Color::White => white |= b,
            Color::Black => black |= b,
        }
    }
    let side = sides[rng.below(2)];
    Position::from_parts(white, black, kings, side).ok()
}

#[test]
fn probes_agree_with_a_plain_search_on_random_positions() {
    let mut rng = Rng::new(2024);
    let mut decisive = 0;
    let mut tried = 0;
    while tried < 400 {
        let n = 2 + rng.below(3);
        let Some(pos) = random_small_position(&mut rng, n) else { continue };
        if legal_moves(&pos).is_empty() {
            continue;
        }
        tried += 1;
        let table = tables().probe(&pos).unwrap();
        // Independent: forced wins within 5 plies by plain minimax.
        if wins_within(&pos, 5) {
            assert_eq!(table, Wdl::Win, "{}", pos.to_fen());
        }
        // The engine's own search without tables, to a fixed depth.
        let game = Game::new(pos);
        let r = Engine::new(1, 8).search_quietly(&game, &Limits { depth: Some(9), ..Limits::default() });
        if r.score >= WIN_BAND {
            decisive += 1;
            assert_eq!(table, Wdl::Win, "{} search {}", pos.to_fen(), r.score);
        } else if r.score <= -WIN_BAND {
            decisive += 1;
            assert_eq!(table, Wdl::Loss, "{} search {}", pos.to_fen(), r.score);
        }
    }
    assert!(decisive >= 40, "only {decisive} decisive positions compared");
}

#[test]
fn missing_tables_and_bad_directories_are_clear_errors() {
    let err = Tables::load(Path::new("/nonexistent/egdb"), 4).unwrap_err();
    assert!(err.to_string().contains("/nonexistent/egdb"), "{err}");
    // A directory with only the 2-piece tables serves 2 pieces, not more.
    let dir = partial_set("partial", &Signature::all(2));
    let (partial, missing) = Tables::load(&dir, 4).unwrap();
    assert_eq!(partial.max_pieces(), 2);
    assert_eq!(egdb::complete_pieces(&dir), 2);
    assert_eq!(egdb::complete_pieces(table_dir()), PIECES);
    assert_eq!(missing.len(), Signature::all(4).len() - Signature::all(2).len());
    assert_eq!(partial.probe(&Position::parse("W:WK46:BK4").unwrap()), Some(Wdl::Draw));
    assert_eq!(partial.probe(&Position::parse("W:WK28,K32:BK4").unwrap()), None);
    let _ = std::fs::remove_dir_all(&dir);
}

/// A directory holding the tables of `sigs` copied from the full set.
fn partial_set(name: &str, sigs: &[Signature]) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(format!("egdb-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    for sig in sigs {
        std::fs::copy(table_dir().join(sig.file_name()), dir.join(sig.file_name())).unwrap();
    }
    dir
}

#[test]
fn a_partial_table_set_keeps_exact_results_and_ends_the_analysis() {
    // Only the 2-piece tables, and the 3-piece ones with the root's missing.
    let three: Vec<Signature> =
        Signature::all(3).into_iter().filter(|s| s.file_name() != "1m0k-1m1k.wdl").collect();
    assert_eq!(three.len() + 1, Signature::all(3).len());
    for (name, sigs) in [("two", Signature::all(2)), ("three-less-one", three)] {
        let dir = partial_set(name, &sigs);
        let (loaded, _) = Tables::load(&dir, 3).unwrap();
        let mut engine = Engine::new(1, 16);
        engine.set_egdb(Some(Arc::new(loaded)));
        let analysis = Limits {
            move_time: Some(std::time::Duration::from_secs(30)),
            analysis: true,
            ..Limits::default()
        };
        // White's man must step into a capture that leaves White nothing:
        // lost in 2, which the tables' "loss" must not blur.
        let r = engine.search_quietly(&Game::from_text("W:W28:B17,K40").unwrap(), &analysis);
        assert_eq!(r.score, -(WIN - 2), "{name}: {}", r.score);
        assert!(r.depth < 20, "{name}: a proven loss analysed to depth {}", r.depth);
        // A table win reached through a capture ends the analysis too.
        let r = engine.search_quietly(&Game::from_text("W:WK46:B19,23").unwrap(), &analysis);
        assert!((TB_WIN - 1_000..TB_WIN).contains(&r.score), "{name}: {}", r.score);
        assert!(r.depth < 20, "{name}: a proven table win analysed to depth {}", r.depth);
        let _ = std::fs::remove_dir_all(&dir);
    }
}

/// Plays the engine (with tables) against itself from `pos`; the result.
fn play_out(pos: Position, with_tables: bool, max_plies: usize) -> GameResult {
    let mut engine = Engine::new(1, 16);
    if with_tables {
        let (tables, _) = Tables::load(table_dir(), PIECES).unwrap();
        engine.set_egdb(Some(Arc::new(tables)));
    }
    let mut game = Game::new(pos);
    let limits = Limits { nodes: Some(20_000), ..Limits::default() };
    for _ in 0..max_plies {
        if game.result() != GameResult::Ongoing {
            break;
        }
        let r = engine.search_quietly(&game, &limits);
        game.play(r.best.unwrap()).unwrap();
    }
    game.result()
}

#[test]
fn the_engine_with_tables_converts_won_endings() {
    // Won 4-piece positions outside the 16- and 5-move rules that a short
    // plain search does not solve, found by a seeded scan of the tables.
    let mut rng = Rng::new(99);
    let mut found = Vec::new();
    let sigs: Vec<Signature> = Signature::all(4).into_iter().filter(|s| s.pieces() == 4).collect();
    while found.len() < 4 {
        let sig = sigs[rng.below(sigs.len())];
        let Some(pos) = position_at(&sig, rng.next_u64() % sig.size()) else { continue };
        if EndgameRule::of(&pos).is_some() || has_capture(&pos) || tables().probe(&pos) != Some(Wdl::Win) {
            continue;
        }
        let game = Game::new(pos);
        let quick = Engine::new(1, 8).search_quietly(&game, &Limits { depth: Some(8), ..Limits::default() });
        if quick.score < WIN_BAND {
            found.push(pos);
        }
    }
    for pos in found {
        let result = play_out(pos, true, 160);
        assert_eq!(result, GameResult::Win(Color::White), "{} not converted: {result}", pos.to_fen());
    }
}

#[test]
fn table_scores_reach_the_search_and_the_root_keeps_the_result() {
    let mut engine = Engine::new(1, 16);
    let (loaded, _) = Tables::load(table_dir(), PIECES).unwrap();
    engine.set_egdb(Some(Arc::new(loaded)));
    // A table win at the root is reported in the database band until the
    // search sees the actual win (in 11 plies here).
    let game = Game::from_text("W:WK46,30:B6,7").unwrap();
    let r = engine.search_quietly(&game, &Limits { depth: Some(2), analysis: true, ..Limits::default() });
    assert!((TB_WIN - 1_000..TB_WIN).contains(&r.score), "{}", r.score);
    let after = game.position().make(&r.best.unwrap());
    assert_eq!(tables().probe(&after), Some(Wdl::Loss), "the move keeps the win");
    let r = engine.search_quietly(&game, &Limits { depth: Some(20), analysis: true, ..Limits::default() });
    assert_eq!(r.score, WIN - 11, "the real distance once seen");
    let after = game.position().make(&r.best.unwrap());
    assert_eq!(tables().probe(&after), Some(Wdl::Loss), "the move keeps the win");
    // From a drawn position, only drawing moves are played.
    let game = Game::from_text("W:WK1,K2,K3:BK46").unwrap();
    let r = engine.search_quietly(&game, &Limits { depth: Some(6), ..Limits::default() });
    assert_eq!(r.score, 0);
    assert_eq!(tables().probe(&game.position().make(&r.best.unwrap())), Some(Wdl::Draw));
}

/// Runs the Hub with `commands`, then `go think` and reads up to `done`.
fn hub_session(commands: &[String]) -> Vec<String> {
    use std::io::{BufRead, BufReader, Write};
    use std::process::{Command, Stdio};
    let mut child = Command::new(env!("CARGO_BIN_EXE_dammer"))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    for c in commands.iter().map(String::as_str).chain(["level depth=2", "go think"]) {
        writeln!(stdin, "{c}").unwrap();
    }
    stdin.flush().unwrap();
    let mut lines = Vec::new();
    for line in BufReader::new(child.stdout.take().unwrap()).lines() {
        let line = line.unwrap();
        let end = line.starts_with("done");
        lines.push(line);
        if end {
            break;
        }
    }
    writeln!(stdin, "quit").unwrap();
    drop(stdin);
    child.wait().unwrap();
    lines
}

#[test]
fn hub_parameters_load_tables_and_scores_use_the_database_band() {
    let dir = table_dir().display().to_string();
    let lines = hub_session(&[
        "hub".into(),
        format!("set-param name=bb-path value=\"{dir}\""),
        "set-param name=bb-size value=4".into(),
        "init".into(),
        "pos pos=W:WK46,30:B6,7".into(),
    ]);
    assert!(lines.iter().any(|l| l.starts_with("param name=bb-path")), "{lines:?}");
    assert!(lines.iter().any(|l| l.starts_with("param name=bb-size")), "{lines:?}");
    assert!(!lines.iter().any(|l| l.starts_with("error")), "{lines:?}");
    let last_info = lines.iter().rev().find(|l| l.starts_with("info")).unwrap();
    // Two plies do not see the win in eleven: the score is the database's.
    let score: f64 = last_info.split("score=").nth(1).unwrap().split(' ').next().unwrap().parse().unwrap();
    assert!((80.0..90.0).contains(&score), "{last_info}");
    let done = lines.last().unwrap();
    let mv = done.split("move=").nth(1).unwrap().split(' ').next().unwrap();
    let pos = Position::parse("W:WK46,30:B6,7").unwrap();
    let m = legal_moves(&pos).iter().copied().find(|m| m.to_string() == mv).unwrap();
    assert_eq!(tables().probe(&pos.make(&m)), Some(Wdl::Loss), "{done} keeps the win");

    // A directory that does not exist: one clear error, and the engine plays on.
    let lines = hub_session(&[
        "hub".into(),
        "set-param name=bb-path value=/nonexistent/tables".into(),
        "init".into(),
        "pos pos=W:WK28,K32,K33:BK10".into(),
    ]);
    let errors: Vec<_> = lines.iter().filter(|l| l.starts_with("error")).collect();
    assert_eq!(errors.len(), 1, "{lines:?}");
    assert!(errors[0].contains("/nonexistent/tables"), "{}", errors[0]);
    assert!(lines.last().unwrap().starts_with("done move="), "{lines:?}");
}

/// `dammer egdb pack` writes the tables as the browser build downloads
/// them: every table of the piece count asked for, each probing as its
/// file does.
#[test]
fn a_pack_of_the_tables_probes_as_the_files_do() {
    let out = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(format!("egdb-pack-{}", std::process::id()));
    let status = std::process::Command::new(env!("CARGO_BIN_EXE_dammer"))
        .args(["egdb", "pack", "--pieces", "3", "--dir"])
        .arg(table_dir())
        .arg("--out")
        .arg(&out)
        .output()
        .unwrap();
    assert!(status.status.success(), "{}", String::from_utf8_lossy(&status.stderr));
    let pack = egdb::Pack::from_bytes(std::fs::read(&out).unwrap(), "pack").unwrap();
    let _ = std::fs::remove_file(&out);
    assert_eq!(egdb::complete_pieces(&pack), 3);
    let opened = egdb::open(&pack, egdb::Pieces::UpTo(egdb::MAX_PIECES)).unwrap();
    assert!(opened.notes.is_empty(), "{:?}", opened.notes);
    let packed = opened.tables;
    assert_eq!(packed.used().count(), Signature::all(3).len());
    for sig in Signature::all(3) {
        for pos in positions(sig, Color::White).chain(positions(sig, Color::Black)) {
            assert_eq!(packed.probe(&pos), tables().probe(&pos), "{pos}");
        }
    }
    // Four pieces are beyond the pack: no answer rather than a guess.
    assert_eq!(packed.probe(&Position::parse("W:WK46,30:B6,7").unwrap()), None);
}
