//! The DXP front end: the wire format byte by byte, and `dammer dxp` over
//! loopback TCP, against a hand-driven peer and against itself in both roles.

use crate::common::temp_dir;
use std::io::{BufRead, BufReader, Write};
use std::net::TcpStream;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use dammer::dxp::message::{Frame, Framer, Message, MessageError};
use dammer::dxp::session::find_move;
use dammer::rules::game::{DrawReason, Game, GameResult};
use dammer::rules::movegen::legal_moves;
use dammer::rules::pdn;
use dammer::rules::position::{Color, Position};

const DAMMER: &str = env!("CARGO_BIN_EXE_dammer");

#[test]
fn messages_round_trip() {
    let start = Position::parse("W:W28,31,32,K46:B8,12,K13,19").unwrap();
    let messages = [
        Message::GameReq {
            version: 1,
            name: "Kingsrow".into(),
            follower: Color::Black,
            minutes: 5.0,
            moves: 75,
            start: None,
        },
        Message::GameReq {
            version: 1,
            name: "x".into(),
            follower: Color::White,
            minutes: 2.5,
            moves: 0,
            start: Some(start),
        },
        Message::GameAcc { name: "Dammer".into(), code: 0 },
        Message::Move { seconds: 12, from: 32, to: 28, captured: vec![] },
        Message::Move { seconds: 0, from: 27, to: 9, captured: vec![22, 13, 18] },
        Message::GameEnd { reason: 2, stop: 1 },
        Message::Chat("hello there".into()),
        Message::BackReq { move_number: 12, side: Color::Black },
        Message::BackAcc { code: 1 },
    ];
    for m in &messages {
        let text = m.encode();
        assert!(text.len() <= 127, "{text}");
        assert_eq!(&Message::parse(&text).unwrap(), m, "{text}");
    }
    // The layouts of the protocol's own examples.
    assert_eq!(Message::GameEnd { reason: 0, stop: 0 }.encode(), "E00");
    assert_eq!(
        Message::Move { seconds: 3, from: 32, to: 28, captured: vec![] }.encode(),
        "M00033228".to_string() + "00"
    );
    let req = format!("R01{:<32}Z005000A", "Moby Dam");
    assert_eq!(
        Message::parse(&req).unwrap(),
        Message::GameReq {
            version: 1,
            name: "Moby Dam".into(),
            follower: Color::Black,
            minutes: 5.0,
            moves: 0,
            start: None
        }
    );
    // Fractional minutes, as some programs write them.
    let req = format!("R01{:<32}W.17000A", "mm");
    assert!(
        matches!(Message::parse(&req).unwrap(), Message::GameReq { minutes, .. } if (minutes - 0.17).abs() < 1e-9)
    );
}

#[test]
fn malformed_messages_say_what_is_wrong() {
    let name = format!("{:<32}", "peer");
    let bad: Vec<(String, &str)> = vec![
        (String::new(), "empty"),
        ("Q123".into(), "unknown message type"),
        (format!("R01{name}W005000"), "GAMEREQ of 42"),
        (format!("R0x{name}W005000A"), "version"),
        (format!("R01{name}X005000A"), "colour"),
        (format!("R01{name}W0-5000A"), "minutes"),
        (format!("R01{name}W0050x0A"), "moves"),
        (format!("R01{name}W005000C"), "start"),
        (format!("R01{name}W005000A{}", "e".repeat(51)), "43 with start A"),
        (format!("R01{name}W005000BW{}", "q".repeat(50)), "squares"),
        (format!("R01{name}W005000BW{}", "w".repeat(50)), "position"),
        (format!("A{name}5"), "code"),
        (format!("A{name}"), "GAMEACC of 33"),
        ("M0001322".into(), "at least 11"),
        ("M00013228012".into(), "13 for 1 captures"),
        ("M00013251".to_string() + "00", "to"),
        ("M00010028".to_string() + "00", "from"),
        ("M0001322801x1".into(), "captured square"),
        ("Mabcd322800".into(), "seconds"),
        ("E4".into(), "GAMEEND of 2"),
        ("E40".into(), "reason"),
        ("E12".into(), "stop code"),
        ("B12W".into(), "BACKREQ of 4"),
        ("B012Q".into(), "side to move"),
        ("K3".into(), "code"),
        ("C\u{7f}".into(), "printable ASCII"),
        ("C".to_string() + &"x".repeat(127), "at most 127"),
    ];
    for (text, want) in bad {
        let e = Message::parse(&text).expect_err(&text);
        assert!(e.to_string().contains(want), "{text:?}: {e}");
    }
    assert_eq!(Message::parse(""), Err(MessageError::Empty));
}

#[test]
fn the_framer_splits_and_joins_messages_and_drops_long_ones() {
    let mut f = Framer::new();
    assert!(f.push(b"E0").is_empty());
    assert_eq!(f.push(b"0\0K1\0M00"), vec![Frame::Text("E00".into()), Frame::Text("K1".into())]);
    assert_eq!(f.push(b"0132280"), vec![]);
    assert_eq!(f.push(b"0\0"), vec![Frame::Text("M0001322800".into())]);
    // Byte by byte.
    let mut out = Vec::new();
    for b in b"C hi\0\0E21\0" {
        out.extend(f.push(&[*b]));
    }
    assert_eq!(out, vec![Frame::Text("C hi".into()), Frame::Text("E21".into())]);
    // Over-long: reported once, dropped to its NUL, and the next one is read.
    let mut long = vec![b'C'; 300];
    long.extend(b"\0E00\0");
    assert_eq!(f.push(&long), vec![Frame::TooLong, Frame::Text("E00".into())]);
}

/// `dammer dxp` listening on a free loopback port; returns it and the port.
fn listener(args: &[&str]) -> (Child, u16) {
    let mut child = Command::new(DAMMER)
        .args(["dxp", "--listen", "127.0.0.1:0", "--hash", "8"])
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut line = String::new();
    BufReader::new(child.stderr.as_mut().unwrap()).read_line(&mut line).unwrap();
    let port = line.trim().rsplit(':').next().unwrap().parse().unwrap_or_else(|_| panic!("{line}"));
    (child, port)
}

/// The peer side of a connection, driven by hand.
struct Peer {
    stream: TcpStream,
    framer: Framer,
    pending: Vec<String>,
}

impl Peer {
    fn connect(port: u16) -> Peer {
        let stream = TcpStream::connect(("127.0.0.1", port)).unwrap();
        stream.set_read_timeout(Some(Duration::from_millis(20))).unwrap();
        Peer { stream, framer: Framer::new(), pending: Vec::new() }
    }

    fn send_raw(&mut self, bytes: &[u8]) {
        self.stream.write_all(bytes).unwrap();
    }

    fn send(&mut self, m: &Message) {
        self.send_raw(&m.to_wire());
    }

    /// The next message that is not a CHAT (chats are counted in `chats`).
    fn next(&mut self, timeout: Duration, chats: &mut Vec<String>) -> Message {
        let deadline = Instant::now() + timeout;
        loop {
            while !self.pending.is_empty() {
                let text = self.pending.remove(0);
                match Message::parse(&text).unwrap_or_else(|e| panic!("Dammer sent {text:?}: {e}")) {
                    Message::Chat(c) => chats.push(c),
                    m => return m,
                }
            }
            assert!(Instant::now() < deadline, "nothing from Dammer in time; chats {chats:?}");
            let frames =
                self.framer.read_from(&mut self.stream).unwrap().expect("Dammer closed the connection");
            for f in frames {
                match f {
                    Frame::Text(t) => self.pending.push(t),
                    Frame::TooLong => panic!("Dammer sent an over-long message"),
                }
            }
        }
    }
}

fn game_request(follower: Color, minutes: f64, start: Option<Position>) -> Message {
    Message::GameReq { version: 1, name: "tester".into(), follower, minutes, moves: 0, start }
}

#[test]
fn a_server_survives_bad_input_interruptions_and_disconnects() {
    let (mut child, port) = listener(&[]);
    let mut chats = Vec::new();
    let mut peer = Peer::connect(port);
    // Garbage first: each message gets a CHAT, the connection lives on.
    peer.send_raw(b"Xjunk\0E9\0M12\0");
    peer.send_raw(&[b'C'; 200]);
    peer.send_raw(b"\0");
    // A version Dammer does not speak.
    let req = game_request(Color::White, 5.0, None).encode().replacen("R01", "R02", 1);
    peer.send_raw(format!("{req}\0").as_bytes());
    assert!(matches!(peer.next(Duration::from_secs(5), &mut chats), Message::GameAcc { code: 1, .. }));
    assert_eq!(chats.len(), 4, "{chats:?}");
    // A game request split over several writes; Dammer plays White in a
    // position outside its book, with a long clock, so it thinks.
    let start = Position::parse(
        "W:W27,28,31,32,33,34,36,37,38,39,40,41,42,43,44,45,47,48,49:B1,2,3,4,6,7,8,9,10,11,12,13,14,16,17,18,19,20,22",
    )
    .unwrap();
    let bytes = game_request(Color::White, 60.0, Some(start)).to_wire();
    for chunk in bytes.chunks(7) {
        peer.send_raw(chunk);
        std::thread::sleep(Duration::from_millis(2));
    }
    assert!(matches!(peer.next(Duration::from_secs(5), &mut chats), Message::GameAcc { code: 0, .. }));
    // While it thinks: a second request is "not now", a BACKREQ "not supported".
    peer.send(&game_request(Color::Black, 5.0, None));
    assert!(matches!(peer.next(Duration::from_secs(5), &mut chats), Message::GameAcc { code: 2, .. }));
    peer.send(&Message::BackReq { move_number: 1, side: Color::White });
    assert_eq!(peer.next(Duration::from_secs(5), &mut chats), Message::BackAcc { code: 1 });
    // A move from us while it is Dammer's turn is refused with a CHAT.
    let before = chats.len();
    peer.send(&Message::Move { seconds: 1, from: 19, to: 23, captured: vec![] });
    // GAMEEND while it thinks: confirmed at once, the mirror of ours.
    let sent = Instant::now();
    peer.send(&Message::GameEnd { reason: 3, stop: 0 });
    assert_eq!(peer.next(Duration::from_secs(2), &mut chats), Message::GameEnd { reason: 1, stop: 0 });
    assert!(sent.elapsed() < Duration::from_secs(1), "confirmed after {:?}", sent.elapsed());
    assert_eq!(chats.len(), before + 1, "{chats:?}");
    // Next game: Dammer is Black; our illegal move ends the game with a CHAT.
    peer.send(&game_request(Color::Black, 5.0, None));
    assert!(matches!(peer.next(Duration::from_secs(5), &mut chats), Message::GameAcc { code: 0, .. }));
    peer.send(&Message::Move { seconds: 1, from: 32, to: 27, captured: vec![] });
    let reply = peer.next(Duration::from_secs(10), &mut chats);
    let Message::Move { from, to, captured, .. } = reply else { panic!("{reply:?}") };
    let mut g = Game::default();
    g.play_text("32-27").unwrap();
    assert!(find_move(g.position(), from, to, &captured).is_some());
    peer.send(&Message::Move { seconds: 1, from: 27, to: 18, captured: vec![] });
    assert!(matches!(peer.next(Duration::from_secs(5), &mut chats), Message::GameEnd { reason: 0, .. }));
    assert!(chats.last().unwrap().contains("illegal move"), "{chats:?}");
    peer.send(&Message::GameEnd { reason: 0, stop: 0 });
    // A game, then the peer vanishes while Dammer thinks: the server
    // listens again and plays the next peer.
    peer.send(&game_request(Color::White, 60.0, Some(start)));
    assert!(matches!(peer.next(Duration::from_secs(5), &mut chats), Message::GameAcc { code: 0, .. }));
    drop(peer);
    std::thread::sleep(Duration::from_millis(100));
    let mut peer = Peer::connect(port);
    peer.send(&game_request(Color::White, 0.05, None));
    assert!(matches!(peer.next(Duration::from_secs(10), &mut chats), Message::GameAcc { code: 0, .. }));
    assert!(matches!(peer.next(Duration::from_secs(10), &mut chats), Message::Move { .. }));
    // Stop code 1 ends a follower's connection, not the server.
    peer.send(&Message::GameEnd { reason: 0, stop: 1 });
    assert_eq!(peer.next(Duration::from_secs(5), &mut chats), Message::GameEnd { reason: 0, stop: 1 });
    assert!(child.try_wait().unwrap().is_none(), "the server lives on");
    let _ = child.kill();
    let _ = child.wait();
}

/// The peer's move in a king ending: a move that gives no capture, the
/// least repeated one, played in `g` and sent.
fn play_safe_move(peer: &mut Peer, g: &mut Game) {
    let pos = *g.position();
    let m = legal_moves(&pos)
        .iter()
        .filter(|m| !dammer::rules::movegen::has_capture(&pos.make(m)))
        .min_by_key(|m| g.positions().iter().filter(|p| **p == pos.make(m)).count())
        .copied()
        .expect("a safe move");
    g.play(m).unwrap();
    peer.send(&Message::Move { seconds: 0, from: m.from_square(), to: m.to_square(), captured: vec![] });
}

/// A king ending over DXP up to the 5-move rule: Dammer (the lone king)
/// answers every move with a searched move that keeps its king, and where
/// the rule has drawn the game it claims the draw with GAMEEND instead of
/// playing a move it would not search.
#[test]
fn a_dxp_king_ending_is_played_until_the_draw_is_claimed() {
    let (mut child, port) = listener(&[]);
    let mut chats = Vec::new();
    let mut peer = Peer::connect(port);
    let start = Position::parse("W:WK3,K7:BK1").unwrap();
    // Half a minute for the game: a second or so a move.
    peer.send(&game_request(Color::Black, 0.5, Some(start)));
    assert!(matches!(peer.next(Duration::from_secs(5), &mut chats), Message::GameAcc { code: 0, .. }));
    let mut g = Game::new(start);
    loop {
        play_safe_move(&mut peer, &mut g);
        match peer.next(Duration::from_secs(10), &mut chats) {
            Message::Move { from, to, captured, .. } => {
                let reply = find_move(g.position(), from, to, &captured).expect("a legal move");
                assert!(!g.result().is_over(), "a move after the game was over: {}", g.position().to_fen());
                g.play(reply).unwrap();
                assert_eq!(g.position().pieces(Color::Black).count_ones(), 1);
                assert!(!dammer::rules::movegen::has_capture(g.position()), "{reply} gives the king away");
                if g.result().is_over() {
                    // Our own move drew the game: Dammer claims it next.
                    let end = peer.next(Duration::from_secs(5), &mut chats);
                    assert_eq!(end, Message::GameEnd { reason: 2, stop: 0 }, "{chats:?}");
                    break;
                }
            }
            Message::GameEnd { reason, .. } => {
                assert_eq!(reason, 2, "{chats:?}");
                assert!(g.result().is_over(), "a claim before the rule: {}", g.position().to_fen());
                break;
            }
            other => panic!("{other:?}"),
        }
        assert!(g.moves().len() < 40, "no end");
    }
    assert!(
        matches!(g.result(), GameResult::Draw(DrawReason::FiveMoves | DrawReason::Repetition)),
        "{}",
        g.result()
    );
    let _ = child.kill();
    let _ = child.wait();
}

/// Three kings against Dammer's lone king over DXP, up to the 16-move
/// rule: Dammer's last move, where every move draws by the rules, is
/// searched as the game that goes on (a peer may play on): it gives no
/// capture, and the draw is claimed after it.
#[test]
fn a_dxp_move_at_the_sixteen_move_draw_point_is_searched() {
    let (mut child, port) = listener(&[]);
    let mut chats = Vec::new();
    let mut peer = Peer::connect(port);
    let start = Position::parse("W:WK47,K45,K36:BK4").unwrap();
    peer.send(&game_request(Color::Black, 0.5, Some(start)));
    assert!(matches!(peer.next(Duration::from_secs(5), &mut chats), Message::GameAcc { code: 0, .. }));
    let mut g = Game::new(start);
    let mut at_draw_point = 0;
    loop {
        play_safe_move(&mut peer, &mut g);
        if g.draw_point().is_some() {
            at_draw_point += 1;
        }
        match peer.next(Duration::from_secs(10), &mut chats) {
            Message::Move { from, to, captured, .. } => {
                let reply = find_move(g.position(), from, to, &captured).expect("a legal move");
                g.play(reply).unwrap();
                assert!(!dammer::rules::movegen::has_capture(g.position()), "{reply} gives the king away");
                if g.result().is_over() {
                    let end = peer.next(Duration::from_secs(5), &mut chats);
                    assert_eq!(end, Message::GameEnd { reason: 2, stop: 0 }, "{chats:?}");
                    break;
                }
            }
            other => panic!("{other:?} at {}", g.position().to_fen()),
        }
        assert!(g.moves().len() < 40, "no end");
    }
    // Repetition may end it first, rarely: the peer repeats least.
    if g.result() == GameResult::Draw(DrawReason::SixteenMoves) {
        assert_eq!(at_draw_point, 1, "Dammer moved once at the draw point");
    }
    let _ = child.kill();
    let _ = child.wait();
}

/// Games between two Dammers over DXP end by the rules, are written as PDN
/// by both sides, and replay.
fn play_both(listen_args: &[&str], connect_args: &[&str], dir: &std::path::Path) {
    let (mut server, port) = listener(listen_args);
    let addr = format!("127.0.0.1:{port}");
    let out = Command::new(DAMMER)
        .args(["dxp", "--connect", &addr, "--hash", "8"])
        .args(connect_args)
        .stdin(Stdio::null())
        .stderr(Stdio::null())
        .output()
        .unwrap();
    assert!(out.status.success());
    // The client says each game's result as it ends, and the score.
    let said = String::from_utf8_lossy(&out.stdout);
    assert_eq!(said.lines().filter(|l| l.starts_with("game ")).count(), 2, "{said}");
    assert!(said.lines().last().is_some_and(|l| l.contains(" in 2 games") && l.contains("points")), "{said}");
    // An initiating server stops after its games; a following one listens
    // on, and gets a moment to write its last game.
    let deadline = Instant::now() + Duration::from_secs(2);
    while server.try_wait().unwrap().is_none() && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(50));
    }
    let _ = server.kill();
    let _ = server.wait();
    for file in ["server.pdn", "client.pdn"] {
        let text = std::fs::read_to_string(dir.join(file)).unwrap_or_else(|e| panic!("{file}: {e}"));
        let games = pdn::read(&text).unwrap();
        assert_eq!(games.len(), 2, "{file}");
        for (g, comments) in games.iter().zip(move_comments(&text)) {
            let game = g.replay().unwrap();
            let result = g.result.as_deref().unwrap();
            assert_ne!(result, "*", "{file}: {text}");
            // A forced move was not searched: it carries a time, no score.
            assert_eq!(comments.len(), game.moves().len(), "{file}");
            for (k, comment) in comments.iter().enumerate() {
                let forced = legal_moves(&game.positions()[k]).len() == 1;
                if let (true, Some(c)) = (forced, comment) {
                    assert_eq!(c.split_whitespace().count(), 1, "{file}: forced move {} has {c:?}", k + 1);
                }
            }
            assert_ne!(g.tag("Termination"), Some(result), "{file}");
            assert!(!g.tag("Termination").unwrap_or("").starts_with(result), "{file}");
            match game.result() {
                dammer::rules::game::GameResult::Ongoing => {
                    assert!(g.tag("Termination").unwrap().contains("tables"), "{file}: {text}")
                }
                r => assert_eq!(r.pdn(), result, "{file}"),
            }
        }
    }
}

/// The comment after each move of each game of a PDN text (`None` where a
/// move has none).
fn move_comments(text: &str) -> Vec<Vec<Option<String>>> {
    let mut games = Vec::new();
    for block in text.split("[Event ").skip(1) {
        let body: String = block.lines().filter(|l| !l.starts_with('[')).collect::<Vec<_>>().join(" ");
        let mut comments: Vec<Option<String>> = Vec::new();
        let mut rest = body.trim();
        while let Some(c) = rest.chars().next() {
            if c == '{' {
                let end = rest.find('}').unwrap();
                *comments.last_mut().unwrap() = Some(rest[1..end].trim().to_string());
                rest = &rest[end + 1..];
                continue;
            }
            let end = rest.find(|c: char| c.is_whitespace() || c == '{').unwrap_or(rest.len());
            let token = &rest[..end];
            let is_move = token.contains(['-', 'x'])
                && token.starts_with(|c: char| c.is_ascii_digit())
                && !["2-0", "0-2", "1-1"].contains(&token);
            if is_move {
                comments.push(None);
            }
            rest = rest[end..].trim_start();
        }
        games.push(comments);
    }
    games
}

#[test]
fn dammer_plays_dammer_over_dxp_in_both_roles() {
    let dir = temp_dir("dxp-selfplay");
    let (s, c) = (dir.join("server.pdn"), dir.join("client.pdn"));
    let (s, c) = (s.to_str().unwrap(), c.to_str().unwrap());
    // The client initiates.
    play_both(&["--pdn", s], &["--pdn", c, "--initiate", "--games", "2", "--minutes", "0.1"], &dir);
    // The server initiates; it stops after its games.
    std::fs::remove_file(s).unwrap();
    std::fs::remove_file(c).unwrap();
    play_both(
        &["--pdn", s, "--initiate", "--games", "2", "--minutes", "0.1", "--colour", "black"],
        &["--pdn", c],
        &dir,
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// `dammer match` drives a DXP engine (started with DXP_HOST/DXP_PORT, or
/// reached at its address) against a Hub engine: full games, no faults,
/// the PDN replays.
#[test]
fn the_match_runner_drives_dxp_engines() {
    use dammer::tools::tournament::client::{EngineSpec, Protocol};
    use dammer::tools::tournament::{self, Config, TimeControl};
    let dir = temp_dir("dxp-match");
    let hub = EngineSpec {
        name: "hub".into(),
        command: vec![DAMMER.into(), "hub".into()],
        protocol: Protocol::Hub,
        dir: None,
        params: vec![("hash".into(), "8".into()), ("move-overhead".into(), "20".into())],
    };
    let client = EngineSpec {
        name: "dxp".into(),
        command: ["dxp", "--hash", "8", "--move-overhead", "20"].iter().fold(
            vec![DAMMER.to_string()],
            |mut v, a| {
                v.push(a.to_string());
                v
            },
        ),
        protocol: Protocol::DxpClient,
        dir: None,
        params: vec![],
    };
    let openings =
        dammer::rules::openings::parse_openings(dammer::rules::openings::DEFAULT_OPENINGS, false).unwrap();
    let mut cfg = Config {
        engines: vec![hub.clone(), client],
        gauntlet: true,
        tc: TimeControl::Clock { moves: None, time: 3.0, inc: 0.0 },
        margin: Duration::from_millis(500),
        gui_overhead: Duration::ZERO,
        draw_rules: tournament::DrawRules::Fmjd,
        openings,
        games: Some(4),
        concurrency: 2,
        pdn: Some(dir.join("games.pdn")),
        resume: false,
        shard: (1, 1),
        max_plies: Some(300),
        draw: None,
        resign: None,
        sprt: None,
        event: "dxp test".into(),
        variant: dammer::rules::variant::Variant::Normal,
    };
    let summary = tournament::run(&cfg, &mut |_| {}).unwrap();
    assert_eq!(summary.games, 4);
    assert!(summary.faults.is_empty(), "{:?}", summary.faults);
    let games = pdn::read(&std::fs::read_to_string(dir.join("games.pdn")).unwrap()).unwrap();
    assert_eq!(games.len(), 4);
    for g in &games {
        let game = g.replay().unwrap();
        let termination = g.tag("Termination").unwrap();
        match game.result() {
            dammer::rules::game::GameResult::Ongoing => {
                assert!(
                    termination.starts_with("adjudication") || termination.contains("claimed"),
                    "{termination}"
                )
            }
            r => assert_eq!(r.pdn(), g.result.as_deref().unwrap(), "{termination}"),
        }
    }
    // An engine already listening, reached at its address.
    let (mut server, port) = listener(&["--move-overhead", "20"]);
    cfg.engines[1] = EngineSpec {
        name: "server".into(),
        command: vec![],
        protocol: Protocol::DxpConnect(format!("127.0.0.1:{port}")),
        dir: None,
        params: vec![],
    };
    cfg.games = Some(2);
    cfg.concurrency = 1;
    cfg.pdn = None;
    let summary = tournament::run(&cfg, &mut |_| {}).unwrap();
    assert_eq!(summary.games, 2);
    assert!(summary.faults.is_empty(), "{:?}", summary.faults);
    let _ = server.kill();
    let _ = server.wait();
    // DXP has no time per move and no increment: said before any game.
    cfg.tc = TimeControl::MoveTime(0.1);
    assert!(tournament::run(&cfg, &mut |_| {}).unwrap_err().contains("without increment"));
    cfg.tc = TimeControl::Clock { moves: None, time: 10.0, inc: 0.1 };
    assert!(tournament::run(&cfg, &mut |_| {}).unwrap_err().contains("without increment"));
    let _ = std::fs::remove_dir_all(&dir);
}

/// A DXP server that serves one connection, as Scan 2.0's does: it accepts
/// once, relays to a `dammer dxp` server, and listens no more.
fn one_connection_server() -> (Child, u16, std::thread::JoinHandle<()>) {
    let (engine, engine_port) = listener(&["--move-overhead", "20"]);
    let front = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = front.local_addr().unwrap().port();
    let relay = std::thread::spawn(move || {
        let Ok((outside, _)) = front.accept() else { return };
        drop(front);
        let inside = TcpStream::connect(("127.0.0.1", engine_port)).unwrap();
        let pump = |mut from: TcpStream, mut to: TcpStream| {
            std::thread::spawn(move || {
                let _ = std::io::copy(&mut from, &mut to);
                let _ = to.shutdown(std::net::Shutdown::Both);
            })
        };
        let a = pump(outside.try_clone().unwrap(), inside.try_clone().unwrap());
        let b = pump(inside, outside);
        let _ = (a.join(), b.join());
    });
    (engine, port, relay)
}

/// `dammer match` against a DXP server that serves one connection: the
/// check before the games must not use it up (Scan 2.0 exited when it
/// closed, and every game was lost by an engine failure).
#[test]
fn the_match_runner_keeps_a_one_connection_server_for_the_games() {
    let (mut engine, port, relay) = one_connection_server();
    let out = Command::new(DAMMER)
        .args(["match", "--engine", "name=hub", &format!("cmd={DAMMER} hub"), "option.hash=8"])
        .args(["--engine", "name=server", &format!("dxp-connect=127.0.0.1:{port}")])
        .args(["--tc", "3", "--games", "2", "--max-plies", "60"])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{text} {}", String::from_utf8_lossy(&out.stderr));
    assert!(text.contains("2 of 2 games played"), "{text}");
    assert!(text.contains("games lost on time or by an engine failure: none"), "{text}");
    let _ = relay.join();
    let _ = engine.kill();
    let _ = engine.wait();
    // Games at once would need a connection each: refused before any game.
    let out = Command::new(DAMMER)
        .args(["match", "--engine", &format!("cmd={DAMMER} hub"), "--engine", "dxp-connect=127.0.0.1:1"])
        .args(["--tc", "3", "--concurrency", "2"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("--concurrency 1"));
}
