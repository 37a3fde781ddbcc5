//! The Hub front end driven through the real binary: every command, the
//! formats clients parse, timing of ping/stop/end of input, and garbage.

use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{self, Receiver};
use std::time::{Duration, Instant};

use crate::common::{
    gwdgui_past_five_moves, gwdgui_sixteen_move_point, keeps_what_it_values, Rng, GWDGUI_PAST_FIVE_MOVES,
    GWDGUI_SIXTEEN_MOVE_POINT,
};
use dammer::rules::game::Game;

struct Hub {
    child: Child,
    stdin: Option<ChildStdin>,
    lines: Receiver<String>,
}

impl Hub {
    fn start(args: &[&str]) -> Hub {
        let mut child = Command::new(env!("CARGO_BIN_EXE_dammer"))
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("start dammer");
        let stdout = child.stdout.take().unwrap();
        let (tx, rx) = mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        let stdin = child.stdin.take();
        Hub { child, stdin, lines: rx }
    }

    fn send(&mut self, line: &str) {
        let stdin = self.stdin.as_mut().unwrap();
        stdin.write_all(line.as_bytes()).unwrap();
        stdin.write_all(b"\n").unwrap();
        stdin.flush().unwrap();
    }

    fn send_bytes(&mut self, bytes: &[u8]) {
        let stdin = self.stdin.as_mut().unwrap();
        stdin.write_all(bytes).unwrap();
        stdin.flush().unwrap();
    }

    /// Lines up to and including the first that starts with `word`.
    fn until(&mut self, word: &str, timeout: Duration) -> Vec<String> {
        let deadline = Instant::now() + timeout;
        let mut out = Vec::new();
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            let line =
                self.lines.recv_timeout(left).unwrap_or_else(|_| panic!("no {word} in time; got {out:?}"));
            let first = line.split(' ').next().unwrap_or("").to_string();
            out.push(line);
            if first == word {
                return out;
            }
        }
    }

    /// A started engine in infinite analysis of the start position.
    fn analysing() -> Hub {
        let mut hub = Hub::start(&["hub"]);
        hub.init();
        hub.send("pos start");
        hub.send("level infinite");
        hub.send("go analyze");
        hub
    }

    fn init(&mut self) {
        self.send("hub");
        let lines = self.until("wait", Duration::from_secs(5));
        assert!(lines[0].starts_with("id name=Dammer version="), "{lines:?}");
        // The version names the embedded network: `0.1.0+n7.1a2b3c4d`.
        let version = lines[0].split(' ').find_map(|f| f.strip_prefix("version=")).unwrap();
        assert_eq!(version, dammer::engine::VERSION);
        let (crate_version, network) = version.split_once('+').expect("build metadata");
        assert_eq!(crate_version, env!("CARGO_PKG_VERSION"));
        assert_eq!(network, dammer::engine::NETWORK);
        let (name, sum) = network.rsplit_once('.').unwrap();
        assert!(!name.is_empty() && sum.len() == 8 && u32::from_str_radix(sum, 16).is_ok(), "{network}");
        self.send("init");
        self.until("ready", Duration::from_secs(10));
    }

    fn close(mut self) {
        drop(self.stdin.take());
        let _ = self.child.wait();
    }
}

fn stderr_of(mut child: Child) -> String {
    let mut s = String::new();
    if let Some(mut e) = child.stderr.take() {
        let _ = std::io::Read::read_to_string(&mut e, &mut s);
    }
    s
}

/// The anchored regex of lidraughts' analysis board, written out by hand,
/// with the pv as Scan writes it: quoted when it has a space (several
/// moves), bare when it is one move (draughtsnet cannot read `"28x19x23"`).
fn lidraughts_info_ok(line: &str) -> bool {
    let Some(rest) = line.strip_prefix("info depth=") else { return false };
    let fields: Vec<&str> = rest.splitn(7, ' ').collect();
    if fields.len() < 7 {
        return false;
    }
    fields[0].parse::<u32>().is_ok()
        && fields[1].starts_with("mean-depth=")
        && fields[2].starts_with("score=")
        && fields[3].strip_prefix("nodes=").is_some_and(|n| n.parse::<u64>().is_ok())
        && fields[4].starts_with("time=")
        && fields[5].starts_with("nps=")
        && fields[6].strip_prefix("pv=").is_some_and(|pv| {
            let moves = pv.strip_prefix('"').and_then(|p| p.strip_suffix('"'));
            match moves {
                Some(m) => m.contains(' ') && m.chars().all(|c| c.is_ascii_digit() || "-xX ".contains(c)),
                None => !pv.is_empty() && pv.chars().all(|c| c.is_ascii_digit() || "-xX".contains(c)),
            }
        })
}

fn done_move(lines: &[String]) -> String {
    let done = lines.last().unwrap();
    let mut parts = done.split(' ');
    assert_eq!(parts.next(), Some("done"));
    let mv = parts.next().expect("done carries a move");
    mv.strip_prefix("move=").expect("move first").to_string()
}

#[test]
fn handshake_params_and_a_search() {
    let mut hub = Hub::start(&["hub"]);
    hub.send("hub");
    let lines = hub.until("wait", Duration::from_secs(5));
    for name in ["threads", "hash", "tt-size", "ponder"] {
        assert!(lines.iter().any(|l| l.starts_with(&format!("param name={name} value="))), "{lines:?}");
    }
    hub.send("set-param name=threads value=2");
    hub.send("set-param name=hash value=16");
    hub.send("init");
    hub.until("ready", Duration::from_secs(10));
    hub.send("pos pos=Wbbbbbbbbbbbbbbbbbbbbeeeeeeeeeewwwwwwwwwwwwwwwwwwww moves=\"32-28 18-23\"");
    hub.send("level depth=6");
    hub.send("go think");
    let lines = hub.until("done", Duration::from_secs(20));
    let infos: Vec<&String> = lines.iter().filter(|l| l.starts_with("info")).collect();
    assert!(!infos.is_empty());
    for l in &infos {
        assert!(lidraughts_info_ok(l), "{l}");
    }
    let mv = done_move(&lines);
    let mut g = Game::default();
    g.play_text("32-28").unwrap();
    g.play_text("18-23").unwrap();
    g.play_text(&mv).unwrap();
    hub.send("quit");
    let status = hub.child.wait().unwrap();
    assert!(status.success());
    assert_eq!(stderr_of(hub.child), "", "nothing on stderr");
}

#[test]
fn no_arguments_means_hub() {
    let mut hub = Hub::start(&[]);
    hub.init();
    hub.send("ping");
    assert_eq!(hub.until("pong", Duration::from_secs(2)), vec!["pong"]);
    hub.close();
}

#[test]
fn ping_and_stop_answer_during_a_search() {
    let mut hub = Hub::analysing();
    std::thread::sleep(Duration::from_millis(300));
    let t = Instant::now();
    hub.send("ping");
    hub.until("pong", Duration::from_secs(2));
    assert!(t.elapsed() < Duration::from_millis(50), "pong took {:?}", t.elapsed());
    let t = Instant::now();
    hub.send("stop");
    let lines = hub.until("done", Duration::from_secs(2));
    assert!(t.elapsed() < Duration::from_millis(50), "done took {:?}", t.elapsed());
    Game::default().play_text(&done_move(&lines)).unwrap();
    // Stop and ponder-hit while idle print nothing.
    hub.send("stop");
    hub.send("ponder-hit");
    hub.send("ping");
    assert_eq!(hub.until("pong", Duration::from_secs(2)), vec!["pong"]);
    hub.close();
}

#[test]
fn end_of_input_ends_a_search_and_the_process() {
    let mut hub = Hub::analysing();
    std::thread::sleep(Duration::from_millis(200));
    let t = Instant::now();
    drop(hub.stdin.take());
    loop {
        if hub.child.try_wait().unwrap().is_some() {
            break;
        }
        assert!(t.elapsed() < Duration::from_secs(1), "still running after end of input");
        std::thread::sleep(Duration::from_millis(5));
    }
}

#[test]
fn any_other_command_ends_the_search_first() {
    let mut hub = Hub::analysing();
    std::thread::sleep(Duration::from_millis(100));
    hub.send("pos pos=Wbbbbbbbbbbbbbbbbbbbbeeeeeeeeeewwwwwwwwwwwwwwwwwwww moves=\"32-28\"");
    hub.send("level depth=3");
    hub.send("go think");
    // Two searches, two dones, in order.
    let first = hub.until("done", Duration::from_secs(2));
    Game::default().play_text(&done_move(&first)).unwrap();
    let second = hub.until("done", Duration::from_secs(5));
    let mut g = Game::default();
    g.play_text("32-28").unwrap();
    g.play_text(&done_move(&second)).unwrap();
    hub.close();
}

#[test]
fn move_time_and_clock_limits_are_kept() {
    let mut hub = Hub::start(&["hub"]);
    hub.init();
    for level in ["move-time=0.05", "time=0", "time=-1.5 inc=0", "time=0.3", "moves=10 time=1 inc=0.1"] {
        hub.send("pos start");
        hub.send(&format!("level {level}"));
        let t = Instant::now();
        hub.send("go think");
        let lines = hub.until("done", Duration::from_secs(3));
        let took = t.elapsed();
        Game::default().play_text(&done_move(&lines)).unwrap();
        if level == "move-time=0.05" {
            assert!(took < Duration::from_millis(50 + 40), "{level}: {took:?}");
        }
    }
    hub.close();
}

#[test]
fn pondering_with_hit_and_stop() {
    let mut hub = Hub::start(&["hub"]);
    hub.send("set-param name=ponder value=true");
    hub.init();
    hub.send("pos start moves=\"32-28\"");
    hub.send("level time=10 inc=0");
    hub.send("go ponder");
    std::thread::sleep(Duration::from_millis(200));
    hub.send("ponder-hit");
    let lines = hub.until("done", Duration::from_secs(10));
    let mut g = Game::default();
    g.play_text("32-28").unwrap();
    g.play_text(&done_move(&lines)).unwrap();
    hub.send("pos start moves=\"32-28\"");
    hub.send("level time=10 inc=0");
    hub.send("go ponder");
    std::thread::sleep(Duration::from_millis(200));
    hub.send("stop");
    let lines = hub.until("done", Duration::from_secs(2));
    g.undo();
    g.play_text(&done_move(&lines)).unwrap();
    hub.close();
}

/// An unknown command is answered with `error` and leaves a running
/// search alone: its `done` comes when the search's own limit says.
#[test]
fn an_unknown_command_is_answered_and_changes_nothing() {
    let mut hub = Hub::analysing();
    std::thread::sleep(Duration::from_millis(100));
    hub.send("frobnicate now=1");
    let lines = hub.until("error", Duration::from_secs(2));
    assert!(lines.last().unwrap().contains("unknown command 'frobnicate'"), "{lines:?}");
    assert!(!lines.iter().any(|l| l.starts_with("done")), "{lines:?}");
    hub.send("stop");
    let lines = hub.until("done", Duration::from_secs(5));
    Game::default().play_text(&done_move(&lines)).unwrap();
    hub.close();
}

#[test]
fn positions_as_fen_and_errors_keep_the_state() {
    let mut hub = Hub::start(&["hub"]);
    hub.init();
    hub.send("pos pos=W:W31-50:B1-20 moves=32-28");
    for bad in [
        "pos pos=Xbbb",
        "pos pos=W:W31-50:B1-51",
        "pos pos=W:W31-50:B1-20 moves=\"32-28 11-99\"",
        "pos pos=W:W31-50:B1-20 moves=\"32-28 32-28\"",
        "level depth=abc",
        "set-param name=threads value=0",
        "set-param name=hash value=lots",
        "pos moves=\"32-28",
        "pos",
        "foo bar",
        "\u{1}\u{2}\u{7f}",
    ] {
        hub.send(bad);
        let line = hub.until("error", Duration::from_secs(2));
        assert!(line.last().unwrap().starts_with("error message="), "{bad}: {line:?}");
    }
    // The position from before the errors still stands: Black to move after 32-28.
    hub.send("level depth=2");
    hub.send("go think");
    let lines = hub.until("done", Duration::from_secs(5));
    let mut g = Game::default();
    g.play_text("32-28").unwrap();
    g.play_text(&done_move(&lines)).unwrap();
    hub.close();
}

#[test]
fn garbage_does_not_break_the_engine() {
    let mut hub = Hub::start(&["hub"]);
    hub.init();
    let mut rng = Rng::new(42);
    let words = [
        "hub",
        "init",
        "pos",
        "level",
        "go",
        "set-param",
        "new-game",
        "ping",
        "stop",
        "ponder-hit",
        "pos=",
        "moves=",
        "\"",
        "=",
        "name=threads",
        "value=",
        "time=",
        "depth=-3",
        "think",
        "analyze",
        "ponder",
        "infinite",
        "W:W31:B1",
        "32-28",
        "x",
        "move-time=nan",
        "nodes=99999999999999999999999",
    ];
    for i in 0..3_000 {
        let mut line = Vec::new();
        match i % 3 {
            0 => {
                for _ in 0..rng.below(6) {
                    line.extend_from_slice(words[rng.below(words.len())].as_bytes());
                    line.push(b' ');
                }
            }
            1 => {
                for _ in 0..rng.below(80) {
                    line.push((rng.next_u64() & 0xFF) as u8);
                }
                line.retain(|&b| b != b'\n');
            }
            _ => {
                let w = words[rng.below(words.len())];
                line.extend_from_slice(w.as_bytes());
                line.extend(std::iter::repeat_n(b'9', rng.below(40)));
            }
        }
        // A go could start a long search; keep garbage searches short.
        if line.starts_with(b"go") {
            hub.send("level depth=2");
        }
        line.push(b'\n');
        hub.send_bytes(&line);
    }
    hub.send_bytes(&vec![b'a'; 200_000]);
    hub.send("");
    hub.send("stop");
    hub.send("ping");
    hub.until("pong", Duration::from_secs(30));
    hub.send("pos start");
    hub.send("level depth=4");
    hub.send("go think");
    let lines = hub.until("done", Duration::from_secs(10));
    Game::default().play_text(&done_move(&lines)).unwrap();
    hub.send("quit");
    assert!(hub.child.wait().unwrap().success());
}

#[test]
fn a_position_without_moves_still_answers() {
    let mut hub = Hub::start(&["hub"]);
    hub.init();
    hub.send("pos pos=W:W46:B41,37");
    hub.send("level depth=3");
    hub.send("go think");
    let lines = hub.until("done", Duration::from_secs(5));
    assert_eq!(lines.last().unwrap(), "done");
    hub.close();
}

/// lidraughts' analysis worker (draughtsnet): new-game, the game's moves,
/// set-param between pos and go, two levels combined, go think; then a
/// node-limited analysis.
#[test]
fn lidraughts_worker_sequence() {
    let mut hub = Hub::start(&["hub"]);
    hub.init();
    hub.send("new-game");
    hub.send("pos pos=Wbbbbbbbbbbbbbbbbbbbbeeeeeeeeeewwwwwwwwwwwwwwwwwwww moves=\"32-28 19-23 28x19 14x23\"");
    hub.send("set-param name=threads value=1");
    hub.send("level depth=21");
    hub.send("level move-time=1.0");
    let t = Instant::now();
    hub.send("go think");
    let lines = hub.until("done", Duration::from_secs(5));
    assert!(t.elapsed() < Duration::from_millis(1_100), "{:?}", t.elapsed());
    assert!(lines.iter().filter(|l| l.starts_with("info")).all(|l| lidraughts_info_ok(l)));
    let mut g = Game::default();
    for m in ["32-28", "19-23", "28x19", "14x23"] {
        g.play_text(m).unwrap();
    }
    g.clone().play_text(&done_move(&lines)).unwrap();
    hub.send("pos pos=Wbbbbbbbbbbbbbbbbbbbbeeeeeeeeeewwwwwwwwwwwwwwwwwwww moves=\"32-28 19-23 28x19 14x23\"");
    hub.send("level nodes=20000");
    hub.send("go analyze");
    let lines = hub.until("done", Duration::from_secs(5));
    g.play_text(&done_move(&lines)).unwrap();
    hub.close();
}

/// lidraughts' computer levels (its mobile app and draughtsnet send the
/// same): level 1 is 50 nodes with handicap 3 and the weak evaluation, level 8
/// depth 21 in a second with the full one; both answer a legal move and no
/// error. A handicap or ply out of range is an error that keeps the state.
#[test]
fn lidraughts_computer_levels() {
    let mut hub = Hub::start(&["hub"]);
    hub.send("hub");
    let params = hub.until("wait", Duration::from_secs(5));
    assert!(
        params.iter().any(|l| l.starts_with("param name=eval ") && l.contains(" pst pattern\"")),
        "{params:?}"
    );
    hub.send("init");
    hub.until("ready", Duration::from_secs(10));
    let moves = "32-28 19-23 28x19 14x23";
    let mut g = Game::default();
    for m in moves.split(' ') {
        g.play_text(m).unwrap();
    }
    for (handicap, nodes, eval, book, depth, time) in [
        (3, 50, "pst", (100, 4), 0, 0.05),
        (2, 120, "pst", (100, 4), 0, 0.1),
        (0, 0, "pattern", (50, 8), 21, 1.0),
    ] {
        hub.send("new-game");
        hub.send(&format!("pos pos=Wbbbbbbbbbbbbbbbbbbbbeeeeeeeeeewwwwwwwwwwwwwwwwwwww moves=\"{moves}\""));
        if handicap > 0 {
            hub.send(&format!("level handicap={handicap}"));
        }
        if nodes > 0 {
            hub.send(&format!("level nodes={nodes}"));
        }
        hub.send(&format!("set-param name=eval value={eval}"));
        hub.send(&format!("set-param name=book-margin value={}", book.0));
        hub.send(&format!("set-param name=book-ply value={}", book.1));
        if depth > 0 {
            hub.send(&format!("level depth={depth}"));
        }
        hub.send(&format!("level move-time={time}"));
        hub.send("go think");
        let lines = hub.until("done", Duration::from_secs(5));
        assert!(!lines.iter().any(|l| l.starts_with("error")), "{lines:?}");
        g.clone().play_text(&done_move(&lines)).unwrap();
    }
    hub.send("level handicap=4");
    hub.send("level ply=0");
    hub.send("level ply=x");
    hub.send("ping");
    let lines = hub.until("pong", Duration::from_secs(5));
    assert_eq!(lines.iter().filter(|l| l.starts_with("error")).count(), 3, "{lines:?}");
    // Antidraughts' levels send a ply cap with a depth.
    hub.send("level depth=5 ply=7");
    hub.send("go analyze");
    let lines = hub.until("done", Duration::from_secs(5));
    assert!(lines.iter().any(|l| l.starts_with("info depth=5 ")), "{lines:?}");
    g.play_text(&done_move(&lines)).unwrap();
    hub.close();
}

/// The `variant` parameter: declared with `values` last (lidraughts'
/// client splits the line at its last `=`), Scan's and lidraughts' names
/// accepted, a variant not played refused with the state kept; the game
/// then ends by the variant's rules.
#[test]
fn the_variant_parameter() {
    let mut hub = Hub::start(&["hub"]);
    hub.send("hub");
    let params = hub.until("wait", Duration::from_secs(5));
    let line = params.iter().find(|l| l.starts_with("param name=variant ")).expect("variant declared");
    assert_eq!(line, "param name=variant value=normal type=enum values=\"normal bt frisian losing killer\"");
    hub.send("set-param name=variant value=antidraughts");
    hub.send("init");
    hub.until("ready", Duration::from_secs(10));
    // Losing: White gives its last man away.
    hub.send("pos pos=W:W28:B19");
    hub.send("level depth=4");
    hub.send("go think");
    let lines = hub.until("done", Duration::from_secs(5));
    assert_eq!(done_move(&lines), "28-23", "{lines:?}");
    hub.send("set-param name=variant value=turkish");
    hub.send("ping");
    let lines = hub.until("pong", Duration::from_secs(5));
    assert!(lines.iter().any(|l| l.starts_with("error") && l.contains("unknown variant")), "{lines:?}");
    // Still losing draughts after the refusal.
    hub.send("pos pos=W:W28:B19");
    hub.send("level depth=4");
    hub.send("go think");
    assert_eq!(done_move(&hub.until("done", Duration::from_secs(5))), "28-23");
    // Breakthrough: crown first.
    hub.send("set-param name=variant value=bt");
    hub.send("pos pos=W:W12,40:B3,45");
    hub.send("level depth=4");
    hub.send("go think");
    let lines = hub.until("done", Duration::from_secs(5));
    assert_eq!(done_move(&lines), "12-7", "{lines:?}");
    assert!(lines.iter().any(|l| l.contains("score=99.")), "{lines:?}");
    hub.close();
}

/// lidraughts' Frisian positions carry the kings' runs (`wolf`): a king
/// that made three non-capturing moves in a row, beside men of its own
/// side, may not move again, and the engine keeps to that.
#[test]
fn frisian_king_runs_from_lidraughts_wolf_field() {
    let mut hub = Hub::start(&["hub"]);
    hub.send("set-param name=variant value=frisian");
    hub.send("init");
    hub.until("ready", Duration::from_secs(10));
    for depth in [1, 6] {
        hub.send("pos pos=W:W38,K46:B3,8 wolf=\"W46=3\"");
        hub.send(&format!("level depth={depth}"));
        hub.send("go think");
        let lines = hub.until("done", Duration::from_secs(10));
        let played = done_move(&lines);
        assert!(played.starts_with("38-"), "the king on 46 is barred: {lines:?}");
    }
    // A run that names no king of that side, or cannot be read: an error,
    // and the position before it stays.
    for bad in ["W38=2", "B46=1", "W46=4", "X46=1", "W46"] {
        hub.send(&format!("pos pos=W:W38,K46:B3,8 wolf=\"{bad}\""));
        hub.send("ping");
        let lines = hub.until("pong", Duration::from_secs(5));
        assert!(lines.iter().any(|l| l.starts_with("error") && l.contains("king run")), "{bad}: {lines:?}");
    }
    hub.send("level depth=2");
    hub.send("go think");
    assert!(done_move(&hub.until("done", Duration::from_secs(10))).starts_with("38-"));
    hub.close();
}

/// GWDGUI's `pos` line of issue 50, as it sends it.
fn past_five_moves_pos() -> String {
    format!(
        "pos pos=Wbbbbbbbbbbbbbbbbbbbbeeeeeeeeeewwwwwwwwwwwwwwwwwwww moves=\"{}\"",
        GWDGUI_PAST_FIVE_MOVES.split_whitespace().collect::<Vec<_>>().join(" ")
    )
}

/// The position after `mv` in [`GWDGUI_PAST_FIVE_MOVES`].
fn after_past_five_moves(mv: &str) -> dammer::rules::position::Position {
    let mut g = gwdgui_past_five_moves();
    g.play_text(mv).unwrap_or_else(|e| panic!("{mv}: {e}"));
    *g.position()
}

#[test]
fn a_gui_that_plays_on_past_a_draw_by_rule_gets_searched_moves() {
    let mut hub = Hub::start(&["hub"]);
    hub.send("hub");
    let params = hub.until("wait", Duration::from_secs(5));
    let line = params.iter().find(|l| l.starts_with("param name=draw-rules ")).expect("draw-rules declared");
    assert_eq!(line, "param name=draw-rules value=fmjd type=enum values=\"fmjd repetition\"");
    hub.send("init");
    hub.until("ready", Duration::from_secs(10));
    for _ in 0..2 {
        hub.send(&past_five_moves_pos());
        hub.send("level move-time=0.3");
        hub.send("go think");
        let lines = hub.until("done", Duration::from_secs(5));
        let mv = done_move(&lines);
        assert!(!dammer::rules::movegen::has_capture(&after_past_five_moves(&mv)), "{mv} gives a king away");
        let deepest = lines
            .iter()
            .filter_map(|l| l.strip_prefix("info depth=")?.split(' ').next()?.parse::<u32>().ok())
            .max();
        assert!(deepest.is_some_and(|d| (5..100).contains(&d)), "{lines:?}");
    }
    // A bad value is an error and changes nothing; the rules can be set.
    hub.send("set-param name=draw-rules value=threefold");
    hub.send("set-param name=draw-rules value=repetition");
    hub.send(&past_five_moves_pos());
    hub.send("level move-time=0.2");
    hub.send("go think");
    let lines = hub.until("done", Duration::from_secs(5));
    assert!(lines.iter().any(|l| l.starts_with("error") && l.contains("fmjd or repetition")), "{lines:?}");
    assert!(!dammer::rules::movegen::has_capture(&after_past_five_moves(&done_move(&lines))));
    hub.send("quit");
    let err = stderr_of(hub.child);
    // Said once for the game (not again at the second `go`, and not under
    // `draw-rules=repetition`, where nothing was passed).
    assert_eq!(err.matches("goes on").count(), 1, "{err}");
    assert!(err.contains("5-move"), "{err}");
}

/// GWDGUI at the 16-move rule's last ply (issue 65): every move draws by
/// the FMJD rules, the GUI plays on. The move is searched as the game that
/// goes on, and gives away no man the search values (the first legal move,
/// 29-33, loses one, into an ending as drawn as the one it leaves).
#[test]
fn a_gui_at_a_draw_point_gets_a_searched_move() {
    let repro = format!(
        "pos pos=Wbbbbbbbbbbbbbbbbbbbbeeeeeeeeeewwwwwwwwwwwwwwwwwwww moves=\"{}\"",
        GWDGUI_SIXTEEN_MOVE_POINT.split_whitespace().collect::<Vec<_>>().join(" ")
    );
    let mut hub = Hub::start(&["hub"]);
    hub.init();
    hub.send(&repro);
    hub.send("level move-time=0.3");
    hub.send("go think");
    let lines = hub.until("done", Duration::from_secs(5));
    let mv = done_move(&lines);
    let g = gwdgui_sixteen_move_point();
    let played = g.clone().play_text(&mv).unwrap_or_else(|e| panic!("{mv}: {e}"));
    keeps_what_it_values(&g, played);
    let deepest = lines
        .iter()
        .filter_map(|l| l.strip_prefix("info depth=")?.split(' ').next()?.parse::<u32>().ok())
        .max();
    assert!(deepest.is_some_and(|d| (5..100).contains(&d)), "{lines:?}");
    hub.send("quit");
    let err = stderr_of(hub.child);
    assert!(err.contains("every move here ends the game") && err.contains("16-move"), "{err}");
}

/// The `strength` parameter (levels for people): level 1 spends about 50
/// nodes a move, full strength is unchanged, and analysis is never weakened.
#[test]
fn strength_levels_weaken_games_only() {
    let mut hub = Hub::start(&["hub"]);
    hub.send("hub");
    let params = hub.until("wait", Duration::from_secs(5));
    assert!(params.iter().any(|l| l == "param name=strength value=0 type=int min=0 max=8"), "{params:?}");
    hub.send("set-param name=strength value=1");
    hub.send("init");
    hub.until("ready", Duration::from_secs(10));
    let fen =
        "W:W27,28,32,33,34,36,37,38,39,40,42,43,44,45,47,48,49:B2,3,6,7,8,9,11,12,13,14,16,17,18,19,21,23,24";
    let nodes = |lines: &[String]| -> u64 {
        let last = lines.iter().rev().find(|l| l.starts_with("info")).expect("an info line");
        last.split(' ').find_map(|f| f.strip_prefix("nodes=")).unwrap().parse().unwrap()
    };
    hub.send(&format!("pos pos={fen}"));
    hub.send("level time=60");
    hub.send("go think");
    let lines = hub.until("done", Duration::from_secs(5));
    assert!(nodes(&lines) <= 60, "{lines:?}");
    Game::from_text(fen).unwrap().play_text(&done_move(&lines)).unwrap();
    hub.send(&format!("pos pos={fen}"));
    hub.send("level nodes=20000");
    hub.send("go analyze");
    let lines = hub.until("done", Duration::from_secs(10));
    assert!(nodes(&lines) > 5_000, "{lines:?}");
    hub.send("set-param name=strength value=9");
    hub.send("ping");
    let lines = hub.until("pong", Duration::from_secs(5));
    assert!(lines.iter().any(|l| l.starts_with("error") && l.contains("strength")), "{lines:?}");
    hub.close();
}

/// lidraughts' analysis board: threads before each search, tt-size then init
/// again, infinite analysis ended by stop.
#[test]
fn lidraughts_analysis_board_sequence() {
    let mut hub = Hub::start(&["hub"]);
    hub.init();
    for round in 0..2 {
        hub.send("set-param name=threads value=2");
        hub.send("set-param name=tt-size value=20");
        hub.send("init");
        hub.until("ready", Duration::from_secs(5));
        hub.send("pos pos=Wbbbbbbbbbbbbbbbbbbbbeeeeeeeeeewwwwwwwwwwwwwwwwwwww");
        hub.send("level infinite");
        hub.send("go analyze");
        std::thread::sleep(Duration::from_millis(150 + 100 * round));
        hub.send("stop");
        let lines = hub.until("done", Duration::from_secs(2));
        Game::default().play_text(&done_move(&lines)).unwrap();
    }
    hub.close();
}

/// lidraughts-bot: an unknown parameter, a clock with increment, pondering.
#[test]
fn lidraughts_bot_sequence() {
    let mut hub = Hub::start(&["hub"]);
    hub.send("hub");
    hub.until("wait", Duration::from_secs(5));
    hub.send("set-param name=initial-time value=300");
    hub.send("set-param name=ponder value=true");
    hub.send("init");
    hub.until("ready", Duration::from_secs(5));
    hub.send("pos pos=Wbbbbbbbbbbbbbbbbbbbbeeeeeeeeeewwwwwwwwwwwwwwwwwwww");
    hub.send("level time=3 inc=0.2");
    hub.send("go think");
    let lines = hub.until("done", Duration::from_secs(5));
    let done = lines.last().unwrap().clone();
    let mv = done_move(&lines);
    let mut g = Game::default();
    g.play_text(&mv).unwrap();
    // Ponder on the expected reply, then the opponent plays it.
    if let Some(p) = done.split(' ').nth(2).and_then(|p| p.strip_prefix("ponder=")) {
        hub.send(&format!("pos pos=Wbbbbbbbbbbbbbbbbbbbbeeeeeeeeeewwwwwwwwwwwwwwwwwwww moves=\"{mv} {p}\""));
        hub.send("level time=3 inc=0.2");
        hub.send("go ponder");
        std::thread::sleep(Duration::from_millis(100));
        hub.send("ponder-hit");
        let lines = hub.until("done", Duration::from_secs(5));
        g.play_text(p).unwrap();
        g.play_text(&done_move(&lines)).unwrap();
    }
    hub.close();
}

#[test]
fn the_book_plays_the_opening_and_a_bad_book_file_is_an_error() {
    let mut hub = Hub::start(&["hub"]);
    hub.send("hub");
    let lines = hub.until("wait", Duration::from_secs(5));
    for name in ["book", "book-file", "book-ply", "book-margin"] {
        assert!(lines.iter().any(|l| l.starts_with(&format!("param name={name} value="))), "{lines:?}");
    }
    hub.send("init");
    hub.until("ready", Duration::from_secs(10));
    // From the start position, on a clock, the book answers at once.
    hub.send("pos start");
    hub.send("level move-time=5");
    let started = Instant::now();
    hub.send("go think");
    let lines = hub.until("done", Duration::from_secs(10));
    assert!(started.elapsed() < Duration::from_secs(2), "a book move is instant");
    let mv = done_move(&lines);
    assert!(Game::default().clone().play_text(&mv).is_ok(), "{mv}");
    let searched = |lines: &[String]| {
        lines.iter().any(|l| l.starts_with("info depth=") && !l.starts_with("info depth=0 "))
    };
    assert!(lines.iter().any(|l| l.starts_with("info depth=0 ") && lidraughts_info_ok(l)), "{lines:?}");
    assert!(!searched(&lines), "{lines:?}");
    // A book file that is not there: one error, and the engine searches on.
    hub.send("set-param name=book-file value=/nonexistent/book.bin");
    let lines = hub.until("error", Duration::from_secs(5));
    assert!(lines.last().unwrap().contains("playing without a book"), "{lines:?}");
    hub.send("set-param name=book-margin value=-3");
    let lines = hub.until("error", Duration::from_secs(5));
    assert!(lines.last().unwrap().contains("book-margin"), "{lines:?}");
    hub.send("pos start");
    hub.send("level move-time=0.2");
    hub.send("go think");
    let lines = hub.until("done", Duration::from_secs(10));
    assert!(searched(&lines), "without a book it searches: {lines:?}");
    // Switched off, likewise; switched back to the embedded book, instant.
    hub.send("set-param name=book-file value=\"\"");
    hub.send("set-param name=book value=false");
    hub.send("level move-time=0.2");
    hub.send("go think");
    let lines = hub.until("done", Duration::from_secs(10));
    assert!(searched(&lines), "{lines:?}");
    hub.send("set-param name=book value=true");
    hub.send("level move-time=0.2");
    hub.send("go think");
    let lines = hub.until("done", Duration::from_secs(10));
    assert!(!searched(&lines), "{lines:?}");
    hub.send("quit");
    hub.close();
}

#[test]
fn multipv_is_offered_and_only_changes_analysis() {
    let mut hub = Hub::start(&["hub"]);
    hub.send("hub");
    let params = hub.until("wait", Duration::from_secs(5));
    assert!(params.iter().any(|l| l == "param name=multipv value=1 type=int min=1 max=100"), "{params:?}");
    hub.send("set-param name=multipv value=3");
    hub.send("set-param name=multipv value=0");
    hub.send("init");
    let lines = hub.until("ready", Duration::from_secs(10));
    assert!(lines.iter().any(|l| l.starts_with("error") && l.contains("multipv")), "{lines:?}");
    hub.send("pos start");
    hub.send("level depth=6");
    hub.send("go analyze");
    let lines = hub.until("done", Duration::from_secs(20));
    let infos: Vec<&String> = lines.iter().filter(|l| l.starts_with("info")).collect();
    // The best line stays as every client reads it; the others follow it.
    for depth in 2..=6 {
        let at: Vec<&&String> =
            infos.iter().filter(|l| l.starts_with(&format!("info depth={depth} "))).collect();
        assert_eq!(at.len(), 3, "{infos:?}");
        assert!(lidraughts_info_ok(at[0]), "{}", at[0]);
        assert!(at[1].ends_with(" multipv=2") && at[2].ends_with(" multipv=3"), "{at:?}");
        let firsts: Vec<&str> = at
            .iter()
            .map(|l| l.split("pv=").nth(1).unwrap().trim_start_matches('"').split([' ', '"']).next().unwrap())
            .collect();
        assert!(firsts[0] != firsts[1] && firsts[1] != firsts[2] && firsts[0] != firsts[2], "{at:?}");
    }
    // A game's search ignores it.
    hub.send("level depth=5");
    hub.send("go think");
    let lines = hub.until("done", Duration::from_secs(20));
    assert!(lines.iter().filter(|l| l.starts_with("info")).all(|l| lidraughts_info_ok(l)), "{lines:?}");
    hub.close();
}

/// The hybrid evaluation over Hub: `eval=hybrid` and its `weights` in
/// either order (GUIs send the parameters in the order declared), no error,
/// and the search runs with it.
#[test]
fn the_hybrid_takes_its_weights_in_either_order() {
    use dammer::engine::eval::weights::{Layout, PatternWeights};
    let dir = crate::common::temp_dir("hub-hybrid");
    let file = dir.join("term.bin");
    std::fs::write(&file, PatternWeights::material(Layout::Regions).to_bytes()).unwrap();
    for order in [["eval", "weights"], ["weights", "eval"]] {
        let mut hub = Hub::start(&["hub"]);
        hub.init();
        for name in order {
            let value = if name == "eval" { "hybrid".to_string() } else { file.display().to_string() };
            hub.send(&format!("set-param name={name} value={value}"));
        }
        hub.send("pos start");
        hub.send("level depth=4");
        hub.send("go analyze");
        let lines = hub.until("done", Duration::from_secs(10));
        assert!(!lines.iter().any(|l| l.starts_with("error")), "{order:?}: {lines:?}");
        assert!(lines.iter().any(|l| l.starts_with("info depth=4 ")), "{lines:?}");
        hub.close();
    }
}

#[test]
fn windows_line_endings_and_paths_with_spaces_and_backslashes() {
    // A Windows GUI ends its lines with CRLF and names files by paths with
    // spaces (quoted) and backslashes; a missing one is an error that names
    // it whole, and the engine plays on.
    let dir = std::env::temp_dir().join(format!("dammer hub paths {}", std::process::id()));
    let tables = dir.join("end game tables");
    std::fs::create_dir_all(&tables).unwrap();
    dammer::tools::egdb::generate(&tables, 3, 1, |_| {}).unwrap();
    let mut hub = Hub::start(&["hub"]);
    hub.send_bytes(b"hub\r\n");
    hub.until("wait", Duration::from_secs(5));
    hub.send_bytes(format!("set-param name=bb-path value=\"{}\"\r\ninit\r\n", tables.display()).as_bytes());
    let lines = hub.until("ready", Duration::from_secs(10));
    assert!(!lines.iter().any(|l| l.starts_with("error")), "{lines:?}");
    hub.send_bytes(b"set-param name=book-file value=\"C:\\Program Files\\Dammer\\my book.bin\"\r\n");
    let lines = hub.until("error", Duration::from_secs(5));
    let error = lines.last().unwrap();
    assert!(error.contains("C:\\Program Files\\Dammer\\my book.bin"), "{error}");
    assert!(!error.ends_with('\r'), "{error:?}");
    hub.send_bytes(b"pos pos=Wbbbbbbbbbbbbbbbbbbbbeeeeeeeeeewwwwwwwwwwwwwwwwwwww moves=\"32-28 18-23\"\r\nlevel depth=4\r\ngo think\r\n");
    let lines = hub.until("done", Duration::from_secs(20));
    let mv = done_move(&lines);
    let mut g = Game::default();
    g.play_text("32-28").unwrap();
    g.play_text("18-23").unwrap();
    g.play_text(&mv).unwrap();
    hub.send_bytes(b"ping\r\n");
    hub.until("pong", Duration::from_secs(5));
    hub.close();
    let _ = std::fs::remove_dir_all(&dir);
}
