//! The exact inputs that once crashed Dammer, hung it or were accepted
//! though impossible, each with the message it gives now: on the command
//! line (exit status and stderr) and on the Hub protocol (an `error` line,
//! and the engine still answering).

use std::io::Write;
use std::process::{Command, Stdio};
use std::time::Duration;

const DAMMER: &str = env!("CARGO_BIN_EXE_dammer");

/// Runs `dammer args` with `stdin`, killed after `timeout`; returns the
/// exit code (None when killed or crashed), stdout and stderr.
fn run(args: &[&str], stdin: &str, timeout: Duration) -> (Option<i32>, String, String) {
    let mut child = Command::new(DAMMER)
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start dammer");
    let mut input = child.stdin.take().unwrap();
    let _ = input.write_all(stdin.as_bytes());
    drop(input);
    let pid = child.id();
    let killer = std::thread::spawn(move || {
        std::thread::sleep(timeout);
        let _ = Command::new("kill").arg(pid.to_string()).status();
    });
    let out = child.wait_with_output().unwrap();
    drop(killer);
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stdout).into(),
        String::from_utf8_lossy(&out.stderr).into(),
    )
}

/// Command lines refused with a clear message and exit status 2, at once.
#[test]
fn command_line_refusals() {
    let cases: &[(&[&str], &str)] = &[
        (&["show", "--fen", "W:W30-50:B1-21"], "White has 21 pieces: a side has at most 20"),
        (&["show", "--fen", "W:W:B"], "there is no piece on the board"),
        (&["show", "--fen", "W:W31:B"], "Black has no pieces, yet White is to move"),
        (&["legal", "garbage"], "1 of 1 positions could not be read"),
        (&["analyse", "--depth", "1000"], "depth must be between 1 and 100, not 1000"),
        (&["analyse", "--time", "-1"], "time must be more than 0 seconds, not -1"),
        (&["analyse", "--time", "soon"], "time must be a number of seconds"),
        (&["analyse", "--nodes", "0"], "nodes must be between 1 and"),
        (&["perft", "1000"], "depth must be between 0 and 20, not 1000"),
        (&["bench", "--threads", "0"], "threads must be between 1 and 256, not 0"),
        (&["bench", "--hash", "99999999"], "hash must be between 1 and 65536, not 99999999"),
        (
            &["selfplay", "--out", "/nonexistent/x", "--games", "1", "--threads", "0"],
            "threads must be between 1",
        ),
        (&["tune", "/nonexistent/x", "--out", "/nonexistent/y", "--batch", "0"], "batch must be between 1"),
        (
            &["match", "--engine", "cmd=x", "--engine", "cmd=y", "--movetime", "-1"],
            "movetime must be more than 0 seconds, not -1",
        ),
        (
            &["match", "--engine", "cmd=x", "--engine", "cmd=y", "--movetime", "1", "--games", "0"],
            "games must be",
        ),
        (
            &["match", "--engine", "cmd=x", "dir=/nonexistent", "--engine", "cmd=y", "--movetime", "1"],
            "working directory /nonexistent does not exist",
        ),
        (
            &["match", "--engine", "cmd=x", "--engine", "cmd=y", "--tc", "10+-1"],
            "increment must be 0 seconds or more",
        ),
    ];
    for (args, message) in cases {
        let (code, _, stderr) = run(args, "", Duration::from_secs(20));
        assert_eq!(code, Some(2), "{args:?}: {stderr}");
        assert!(stderr.contains(message), "{args:?}: {stderr}");
        assert!(!stderr.contains("panicked"), "{args:?}: {stderr}");
    }
}

/// Every command that takes a position takes it both ways: as the
/// argument and with `--fen`, with the same answer; both at once is refused.
#[test]
fn a_position_is_given_the_same_way_everywhere() {
    const FEN: &str = "W:W28,K46:B17,19";
    let commands: &[&[&str]] = &[
        &["show"],
        &["perft", "3"],
        &["analyse", "--depth", "3", "--no-book"],
        &["legal"],
        &["book", "show"],
    ];
    for cmd in commands {
        let positional: Vec<&str> = cmd.iter().copied().chain([FEN]).collect();
        let option: Vec<&str> = cmd.iter().copied().chain(["--fen", FEN]).collect();
        let (code, by_argument, stderr) = run(&positional, "", Duration::from_secs(20));
        assert_eq!(code, Some(0), "{positional:?}: {stderr}");
        let (code, by_option, stderr) = run(&option, "", Duration::from_secs(20));
        assert_eq!(code, Some(0), "{option:?}: {stderr}");
        // Timings differ; the rest is the same.
        let keep = |t: &str| {
            t.lines().filter(|l| !l.contains(" in ") && !l.contains("knps")).collect::<Vec<_>>().join("\n")
        };
        assert_eq!(keep(&by_argument), keep(&by_option), "{cmd:?}");
        if cmd[0] == "legal" {
            continue; // it takes many positions, so both forms add up
        }
        let both: Vec<&str> = positional.iter().copied().chain(["--fen", FEN]).collect();
        let (code, _, stderr) = run(&both, "", Duration::from_secs(20));
        assert_eq!(code, Some(2), "{both:?}: {stderr}");
    }
    let (code, _, stderr) = run(&["egdb", "probe", "--dir", "/tmp"], "", Duration::from_secs(20));
    assert_eq!(code, Some(2), "{stderr}");
    assert!(stderr.contains("needs a position"), "{stderr}");
}

/// Times beyond a billion seconds mean "forever", not a crash: the search
/// runs until another limit (here a depth) ends it.
#[test]
fn huge_times_saturate() {
    let (code, stdout, stderr) =
        run(&["analyse", "--time", "1e20", "--depth", "3"], "", Duration::from_secs(20));
    assert_eq!(code, Some(0), "{stderr}");
    assert!(stdout.contains("best move"), "{stdout}");
    let (code, stdout, stderr) =
        run(&["analyse", "--time", "inf", "--depth", "2"], "", Duration::from_secs(20));
    assert_eq!(code, Some(0), "{stderr}{stdout}");
}

/// The Hub lines that killed the engine, and the ones it took silently.
#[test]
fn hub_inputs_answered() {
    let script = "hub\ninit\npos start\nlevel time=1e21\ngo think\nstop\n\
                  level time=1 inc=1e300\ngo think\nstop\n\
                  level depth=-5\nlevel move-time=-1\nlevel inc=-1\nlevel time=nan\n\
                  set-param name=move-overhead value=-3\nset-param name=hash value=abc\n\
                  pos pos=W:W30-50:B1-21\npos pos=W:W:B\n\
                  level move-time=0\ngo think\nping\nquit\n";
    let (code, stdout, stderr) = run(&[], script, Duration::from_secs(30));
    assert_eq!(code, Some(0), "{stdout}{stderr}");
    let lines: Vec<&str> = stdout.lines().collect();
    assert_eq!(lines.iter().filter(|l| l.starts_with("done move=")).count(), 3, "{stdout}");
    for message in [
        "depth must be between 1 and 100, not -5",
        "move-time must be 0 seconds or more, not -1",
        "inc must be 0 seconds or more, not -1",
        "time must be a number of seconds, not 'nan'",
        "move-overhead must be between 0 and 10000, not -3",
        "hash must be an integer, not 'abc'",
        "bad position: White has 21 pieces",
        "bad position: there is no piece on the board",
    ] {
        assert!(
            lines.iter().any(|l| l.starts_with("error message=") && l.contains(message)),
            "{message}: {stdout}"
        );
    }
    assert!(lines.contains(&"pong"), "{stdout}");
}
