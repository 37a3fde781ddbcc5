//! Fuzzing without a nightly toolchain: the Hub session fed real client
//! lines mutated at random (fields dropped, doubled, spliced, numbers
//! replaced by extremes, bytes flipped), and the position and move parsers
//! fed mutated FENs, Hub strings and moves. Each run is bounded: CI runs
//! the default counts; `DAMMER_FUZZ_LINES` runs more.

use std::io::{BufRead, BufReader, Write};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use crate::common::{random_game, random_position, Rng};
use dammer::rules::game::Game;
use dammer::rules::position::Position;

/// Lines real clients send (Hub GUI, pydraughts, lidraughts' worker and
/// bot), the seeds of the mutations.
const SEEDS: &[&str] = &[
    "hub",
    "init",
    "new-game",
    "ping",
    "stop",
    "ponder-hit",
    "set-param name=threads value=1",
    "set-param name=hash value=16",
    "set-param name=tt-size value=20",
    "set-param name=move-overhead value=50",
    "set-param name=ponder value=true",
    "set-param name=eval value=hand",
    "set-param name=eval value=learned",
    "set-param name=bb-size value=0",
    "pos",
    "pos pos=Wbbbbbbbbbbbbbbbbbbbbeeeeeeeeeewwwwwwwwwwwwwwwwwwww",
    "pos pos=W:W31-50:B1-20 moves=\"32-28 18-23\"",
    "pos pos=B:W18,24,27,28,K10,K15:B12,16,20,K22,K25,K29",
    "pos moves=\"32-28 19-23 28x19 14x23\"",
    "pos pos=W:WK46,K47:BK5",
    "level depth=3",
    "level move-time=0.01",
    "level time=0.5 inc=0.01",
    "level moves=40 time=0.3 inc=0",
    "level nodes=2000",
    "level infinite",
    "go think",
    "go ponder",
    "go analyze",
    "quit",
];

/// Values that have broken engines: huge, negative, not numbers.
const EXTREMES: &[&str] = &[
    "1e21",
    "1e300",
    "-1",
    "-5",
    "0",
    "-0",
    "inf",
    "-inf",
    "nan",
    "NaN",
    "99999999999999999999999",
    "1e-300",
    "\"\"",
    "=",
    "x",
    "0x10",
    "18446744073709551616",
    "-9223372036854775809",
];

fn mutate(rng: &mut Rng, line: &str) -> Vec<u8> {
    let mut bytes = line.as_bytes().to_vec();
    for _ in 0..1 + rng.below(3) {
        match rng.below(8) {
            // Replace a value with an extreme one.
            0 | 1 => {
                let text = String::from_utf8_lossy(&bytes).into_owned();
                if let Some(eq) = text.rfind('=') {
                    let end = text[eq + 1..].find(' ').map_or(text.len(), |e| eq + 1 + e);
                    let mut t = text[..=eq].to_string();
                    t.push_str(EXTREMES[rng.below(EXTREMES.len())]);
                    t.push_str(&text[end..]);
                    bytes = t.into_bytes();
                }
            }
            // Flip, insert or delete bytes.
            2 if !bytes.is_empty() => {
                let i = rng.below(bytes.len());
                bytes[i] ^= 1 << rng.below(8);
            }
            3 => {
                let i = rng.below(bytes.len() + 1);
                bytes.insert(i, (rng.next_u64() & 0xFF) as u8);
            }
            4 if !bytes.is_empty() => {
                let i = rng.below(bytes.len());
                let n = rng.below(bytes.len() - i + 1);
                bytes.drain(i..i + n);
            }
            // Splice with another line.
            5 => {
                let other = SEEDS[rng.below(SEEDS.len())].as_bytes();
                let cut = rng.below(bytes.len() + 1);
                bytes.truncate(cut);
                bytes.extend_from_slice(&other[rng.below(other.len() + 1)..]);
            }
            // Double a field.
            6 => {
                let text = String::from_utf8_lossy(&bytes).into_owned();
                if let Some(field) = text.split(' ').nth(1) {
                    bytes.push(b' ');
                    bytes.extend_from_slice(field.as_bytes());
                }
            }
            _ => {}
        }
    }
    bytes.retain(|&b| b != b'\n' && b != b'\r');
    bytes
}

fn rss_kb(pid: u32) -> Option<u64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    let line = status.lines().find(|l| l.starts_with("VmRSS:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

/// Every mutated line leaves the engine answering: at the end it still
/// answers `ping` and plays a legal move, and it exits cleanly. Searches
/// stay short: a `go` goes out only after a bounding `level`.
#[test]
fn hub_survives_mutated_client_lines() {
    let lines: usize = std::env::var("DAMMER_FUZZ_LINES").ok().and_then(|v| v.parse().ok()).unwrap_or(20_000);
    let mut child = Command::new(env!("CARGO_BIN_EXE_dammer"))
        .arg("hub")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start dammer");
    let pid = child.id();
    let stdout = child.stdout.take().unwrap();
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines() {
            let Ok(line) = line else { break };
            if tx.send(line).is_err() {
                break;
            }
        }
    });
    let mut stdin = child.stdin.take().unwrap();
    let mut send = |bytes: &[u8]| {
        stdin.write_all(bytes).and_then(|()| stdin.write_all(b"\n")).and_then(|()| stdin.flush())
    };
    send(b"hub").unwrap();
    send(b"init").unwrap();
    send(b"ping").unwrap();
    let wait_for = |word: &str, timeout: Duration| {
        let deadline = Instant::now() + timeout;
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match rx.recv_timeout(left) {
                Ok(l) if l == word => return true,
                Ok(_) => {}
                Err(_) => return false,
            }
        }
    };
    assert!(wait_for("pong", Duration::from_secs(10)), "no pong after init");
    let rss_start = rss_kb(pid);
    let mut rng = Rng::new(0xF022);
    let start = Instant::now();
    // The lines since the last answered ping, to tell what hung.
    let mut recent: Vec<String> = Vec::new();
    // DAMMER_FUZZ_DUMP=FILE keeps every line sent, to replay a failure.
    let mut dump = std::env::var_os("DAMMER_FUZZ_DUMP").map(|p| std::fs::File::create(p).unwrap());
    for i in 0..lines {
        let seed = SEEDS[rng.below(SEEDS.len())];
        let line = if rng.below(4) == 0 { seed.as_bytes().to_vec() } else { mutate(&mut rng, seed) };
        // Whatever reads as `quit` (also "\x0bquit": a vertical tab is
        // white space) would end the run.
        let parsed = dammer::hub::Message::parse(&String::from_utf8_lossy(&line));
        if matches!(&parsed, Ok(Some(m)) if m.command == "quit") {
            continue;
        }
        if line.starts_with(b"go") {
            send(b"level depth=2 move-time=0.05").unwrap();
        }
        if let Err(e) = send(&line) {
            let status = child.wait();
            let mut err = String::new();
            let _ = std::io::Read::read_to_string(&mut child.stderr.take().unwrap(), &mut err);
            panic!(
                "the engine went away at line {i} ({e}; {status:?}; stderr {err}): {:?}; before: {:?}",
                String::from_utf8_lossy(&line),
                &recent[recent.len().saturating_sub(5)..]
            );
        }
        recent.push(String::from_utf8_lossy(&line).into_owned());
        // A mutated size can ask for gigabytes (tt-size=28 is 4 GiB), which
        // every `new-game` then clears: legal, but a test of the machine's
        // memory, not of the protocol. The size goes back to 16 MiB before
        // the table is made.
        if line.windows(4).any(|w| w == b"hash") || line.windows(7).any(|w| w == b"tt-size") {
            send(b"set-param name=hash value=16").unwrap();
        }
        if let Some(f) = dump.as_mut() {
            f.write_all(&line).and_then(|()| f.write_all(b"\n")).unwrap();
        }
        // Now and then make sure it is still there.
        if i % 2_000 == 1_999 {
            send(b"ping").unwrap();
            assert!(
                wait_for("pong", Duration::from_secs(30)),
                "no pong after line {i}; lines since the last: {recent:?}"
            );
            recent.clear();
        }
    }
    // Memory is the table the last `hash` asked for plus a bounded rest:
    // a search is done before the table is read.
    send(b"stop").unwrap();
    send(b"hub").unwrap();
    let deadline = Instant::now() + Duration::from_secs(30);
    let mut threads = 0u64;
    let hash_mb: u64 = loop {
        let left = deadline.saturating_duration_since(Instant::now());
        let l = rx.recv_timeout(left).expect("the parameters at the end");
        if let Some(rest) = l.strip_prefix("param name=threads value=") {
            threads = rest.split(' ').next().unwrap().parse().unwrap();
        }
        if let Some(rest) = l.strip_prefix("param name=hash value=") {
            break rest.split(' ').next().unwrap().parse().unwrap();
        }
    };
    assert!(wait_for("wait", Duration::from_secs(10)));
    send(b"init").unwrap();
    assert!(wait_for("ready", Duration::from_secs(60)));
    let rss_end = rss_kb(pid);
    if let Some(kb) = rss_end {
        assert!(kb / 1024 <= hash_mb + 64, "{kb} kB resident with a {hash_mb} MiB table");
    }
    send(b"pos start").unwrap();
    send(b"level depth=3").unwrap();
    send(b"go think").unwrap();
    let deadline = Instant::now() + Duration::from_secs(30);
    let done = loop {
        let left = deadline.saturating_duration_since(Instant::now());
        let l = rx.recv_timeout(left).expect("a done line at the end");
        if l.starts_with("done move=") {
            break l;
        }
    };
    let mv = done.split(' ').nth(1).unwrap().trim_start_matches("move=");
    Game::default().play_text(mv).unwrap();
    send(b"quit").unwrap();
    let status = child.wait().unwrap();
    assert!(status.success(), "exit status {status}");
    println!(
        "{lines} mutated lines in {:.1} s, resident memory {} kB after init, {} kB at the end \
         with hash {hash_mb} MiB and {threads} threads",
        start.elapsed().as_secs_f64(),
        rss_start.unwrap_or(0),
        rss_end.unwrap_or(0)
    );
}

/// The parsers return errors, never panic, on mutated positions and moves.
#[test]
fn parsers_survive_mutated_positions_and_moves() {
    let mut rng = Rng::new(0xFE17);
    let mut accepted = 0;
    for i in 0..200_000 {
        let n = rng.below(80);
        let pos = match i % 3 {
            0 => *random_game(&mut rng, n).position(),
            1 => random_position(&mut rng, 5 + n % 60, 30),
            _ => Position::start(),
        };
        let text = if i % 2 == 0 { pos.to_fen() } else { pos.to_hub() };
        let mutated = String::from_utf8_lossy(&mutate(&mut rng, &text)).into_owned();
        if let Ok(p) = Position::parse(&mutated) {
            accepted += 1;
            // What is accepted is a position the rules allow, and it reads back.
            assert!(p.pieces(p.side().opponent()) != 0, "{mutated}");
            assert_eq!(Position::parse(&p.to_fen()).unwrap(), p, "{mutated}");
            let mut game = Game::new(p);
            for word in mutated.split([':', ',', ' ']).take(8) {
                let _ = game.play_text(word);
            }
        }
        let mut game = Game::new(pos);
        let _ = game.play_text(&mutated.chars().take(30).collect::<String>());
    }
    assert!(accepted > 10_000, "mutations too harsh to test acceptance: {accepted}");
}
