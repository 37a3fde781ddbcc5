use dammer::{perft, position::Position};
fn main() {
    let args: Vec<String> = std::env::args().collect();
    let d: u32 = args[1].parse().unwrap();
    let pos = if args.len() > 2 { Position::from_fen(&args[2]).unwrap() } else { Position::start() };
    let t = std::time::Instant::now();
    let n = perft::perft(&pos, d);
    println!("{n} {:?}", t.elapsed());
}
