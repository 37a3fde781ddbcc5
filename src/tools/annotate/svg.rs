//! The evaluation graph of an annotated game as a self-contained SVG: the
//! score after each move from White's side (clipped at four men), on a
//! white plot the area between the zero line and the curve filled light
//! where White is better and dark where Black is (as lichess draws it), the
//! moves marked `??`, `?` and `!` as coloured dots, the mistakes named in
//! rows above the plot with a leader to their dot (never over the curve),
//! and a legend. Written by hand: a few dozen elements need no plotting
//! library.

use std::fmt::Write as _;

use super::{MoveReport, PositionReport};
use crate::engine::score::Score;
use crate::rules::game::Game;
use crate::rules::notation::to_pdn;
use crate::rules::position::Color;

const WIDTH: f64 = 900.0;
const HEIGHT: f64 = 360.0 + LABEL_ROWS as f64 * LABEL_ROW;
const LEFT: f64 = 56.0;
const RIGHT: f64 = 20.0;
/// Room for the title and, below it, [`LABEL_ROWS`] rows of move labels.
const TOP: f64 = 44.0 + LABEL_ROWS as f64 * LABEL_ROW;
/// Rows of mistake labels above the plot, and the height of one.
const LABEL_ROWS: usize = 3;
const LABEL_ROW: f64 = 13.0;
/// Fill of White's advantage (light, but visible on the white plot) and
/// of Black's.
const WHITE_FILL: &str = "#e4ddc8";
const BLACK_FILL: &str = "#3a3a3a";
const BOTTOM: f64 = 64.0;
/// Scores beyond this many hundredths of a man are drawn at the edge.
const CLIP: Score = 400;

/// Escapes text for SVG.
fn escape(text: &str) -> String {
    text.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;").replace('"', "&quot;")
}

/// The graph of a game: `reports` are its positions' searches (the start
/// position's first), `moves` the verdicts on its moves.
pub fn graph(title: &str, game: &Game, reports: &[PositionReport], moves: &[MoveReport]) -> String {
    let plies = moves.len().max(1) as f64;
    let plot_w = WIDTH - LEFT - RIGHT;
    let plot_h = HEIGHT - TOP - BOTTOM;
    let x = |ply: usize| LEFT + plot_w * ply as f64 / plies;
    let y = |s: Score| TOP + plot_h / 2.0 - plot_h / 2.0 * f64::from(s.clamp(-CLIP, CLIP)) / f64::from(CLIP);
    let start = game.start();
    let start_white =
        reports.first().map_or(0, |r| if start.side() == Color::White { r.score } else { -r.score });
    // (ply, White's score): the start position, then after each move.
    let points: Vec<(usize, Score)> = std::iter::once((0, start_white))
        .chain(moves.iter().enumerate().map(|(i, m)| (i + 1, m.white_score)))
        .collect();

    let mut svg = String::new();
    let _ = writeln!(
        svg,
        r##"<svg xmlns="http://www.w3.org/2000/svg" width="{WIDTH}" height="{HEIGHT}" viewBox="0 0 {WIDTH} {HEIGHT}" font-family="DejaVu Sans, Arial, sans-serif" font-size="12">"##
    );
    let _ = writeln!(svg, r##"<rect width="100%" height="100%" fill="#ffffff"/>"##);
    let _ = writeln!(
        svg,
        r##"<text x="{LEFT}" y="24" font-size="15" font-weight="bold">{}</text>"##,
        escape(title)
    );
    // The plot: white, and the score as an area from the zero line, light
    // above it (White better) and dark below (Black better).
    let mid = y(0);
    let _ = writeln!(
        svg,
        r##"<rect x="{LEFT}" y="{TOP}" width="{plot_w}" height="{plot_h}" fill="#ffffff" stroke="#999999"/>"##
    );
    let mut area = format!("M {:.1} {mid:.1}", x(0));
    for &(ply, s) in &points {
        let _ = write!(area, " L {:.1} {:.1}", x(ply), y(s));
    }
    let _ = write!(area, " L {:.1} {mid:.1} Z", x(points.last().map_or(0, |p| p.0)));
    let _ = writeln!(
        svg,
        r##"<clipPath id="above"><rect x="{LEFT}" y="{TOP}" width="{plot_w}" height="{:.1}"/></clipPath>"##,
        mid - TOP
    );
    let _ = writeln!(
        svg,
        r##"<clipPath id="below"><rect x="{LEFT}" y="{mid:.1}" width="{plot_w}" height="{:.1}"/></clipPath>"##,
        TOP + plot_h - mid
    );
    let _ =
        writeln!(svg, r##"<path d="{area}" fill="{WHITE_FILL}" stroke="none" clip-path="url(#above)"/>"##);
    let _ =
        writeln!(svg, r##"<path d="{area}" fill="{BLACK_FILL}" stroke="none" clip-path="url(#below)"/>"##);
    let line: Vec<String> = points.iter().map(|&(p, s)| format!("{:.1},{:.1}", x(p), y(s))).collect();
    let _ = writeln!(
        svg,
        r##"<polyline points="{}" fill="none" stroke="#1f4e79" stroke-width="1.6"/>"##,
        line.join(" ")
    );
    // Axes: scores every man, move numbers about every ten moves.
    for men in -4..=4 {
        let yy = y(men * 100);
        let (stroke, dash) =
            if men == 0 { ("#333333", "") } else { ("#cccccc", r#" stroke-dasharray="3,3""#) };
        let _ = writeln!(
            svg,
            r##"<line x1="{LEFT}" y1="{yy:.1}" x2="{:.1}" y2="{yy:.1}" stroke="{stroke}"{dash}/>"##,
            LEFT + plot_w
        );
        let label = if men > 0 { format!("+{men}") } else { men.to_string() };
        let _ = writeln!(
            svg,
            r##"<text x="{:.1}" y="{:.1}" text-anchor="end">{label}</text>"##,
            LEFT - 6.0,
            yy + 4.0
        );
    }
    let white_first = start.side() == Color::White;
    let full_moves = (moves.len() + usize::from(!white_first)).div_ceil(2);
    let step = match full_moves {
        0..=30 => 5,
        31..=80 => 10,
        _ => 20,
    };
    let mut n = step;
    while n <= full_moves {
        // Ply after White's move of full move n.
        let ply = 2 * n - 1 - usize::from(!white_first);
        if ply <= moves.len() {
            let xx = x(ply);
            let _ = writeln!(
                svg,
                r##"<line x1="{xx:.1}" y1="{:.1}" x2="{xx:.1}" y2="{:.1}" stroke="#999999"/>"##,
                TOP + plot_h,
                TOP + plot_h + 4.0
            );
            let _ = writeln!(
                svg,
                r##"<text x="{xx:.1}" y="{:.1}" text-anchor="middle">{n}</text>"##,
                TOP + plot_h + 16.0
            );
        }
        n += step;
    }
    let _ = writeln!(
        svg,
        r##"<text x="{:.1}" y="{:.1}" text-anchor="middle" fill="#444444">move</text>"##,
        LEFT + plot_w / 2.0,
        TOP + plot_h + 30.0
    );
    let _ = writeln!(
        svg,
        r##"<text transform="translate(16 {:.1}) rotate(-90)" text-anchor="middle" fill="#444444">score for White (men)</text>"##,
        TOP + plot_h / 2.0
    );
    // The marked moves. Mistakes and blunders are named in the rows above
    // the plot, each in the lowest row where it does not touch the label
    // before it, with a dotted leader down to its dot.
    let positions = game.positions();
    let mut row_end = [f64::NEG_INFINITY; LABEL_ROWS];
    for (i, m) in moves.iter().enumerate() {
        let colour = match m.glyph {
            "??" => "#d62728",
            "?" => "#ff9f1c",
            "!" => "#2ca02c",
            _ => continue,
        };
        let (xx, yy) = (x(i + 1), y(m.white_score));
        let number = (i + usize::from(!white_first)) / 2 + 1;
        let dots = if m.side == Color::White { "." } else { "..." };
        let label = format!("{number}{dots} {}{}", to_pdn(&positions[i], &m.mv), m.glyph);
        let _ = writeln!(
            svg,
            r##"<circle cx="{xx:.1}" cy="{yy:.1}" r="5" fill="{colour}" stroke="#000000" stroke-width="0.6"><title>{} (best {:+.2}, played {:+.2})</title></circle>"##,
            escape(&label),
            f64::from(m.best) / 100.0,
            f64::from(m.played) / 100.0
        );
        if m.glyph == "!" {
            continue;
        }
        // About 6 pixels a character at font size 10, centred on the dot.
        let half = 3.0 * label.chars().count() as f64 + 4.0;
        let row = (0..LABEL_ROWS).find(|&r| row_end[r] < xx - half).unwrap_or_else(|| {
            (0..LABEL_ROWS).min_by(|&a, &b| row_end[a].total_cmp(&row_end[b])).unwrap_or(0)
        });
        row_end[row] = xx + half;
        let ty = TOP - 6.0 - row as f64 * LABEL_ROW;
        let _ = writeln!(
            svg,
            r##"<line x1="{xx:.1}" y1="{:.1}" x2="{xx:.1}" y2="{:.1}" stroke="{colour}" stroke-width="0.8" stroke-dasharray="1,2"/>"##,
            ty + 3.0,
            yy - 5.0
        );
        let _ = writeln!(
            svg,
            r##"<text x="{xx:.1}" y="{ty:.1}" text-anchor="middle" font-size="10" fill="{colour}">{}</text>"##,
            escape(&label)
        );
    }
    // Legend.
    let ly = HEIGHT - 14.0;
    let mut lx = LEFT;
    for (colour, text) in [("#d62728", "?? blunder"), ("#ff9f1c", "? mistake"), ("#2ca02c", "! only move")] {
        let _ = writeln!(
            svg,
            r##"<circle cx="{:.1}" cy="{:.1}" r="5" fill="{colour}" stroke="#000000" stroke-width="0.6"/>"##,
            lx + 5.0,
            ly - 4.0
        );
        let _ = writeln!(svg, r##"<text x="{:.1}" y="{ly:.1}">{text}</text>"##, lx + 14.0);
        lx += 120.0;
    }
    let _ = writeln!(
        svg,
        r##"<text x="{:.1}" y="{ly:.1}" fill="#444444">light area: White better, dark: Black better (clipped at 4 men)</text>"##,
        lx + 10.0
    );
    svg.push_str("</svg>\n");
    svg
}
