//! The console's board diagram and colour: pieces beside a legend of the
//! square numbers, the side to move in words, and ANSI colour only where a
//! person reads a terminal (never in pipes, files or with `NO_COLOR`).

use std::io::IsTerminal;

use crate::rules::position::{Color, Piece, Position};

/// When to colour the console's output.
#[derive(clap::ValueEnum, Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum ColorChoice {
    /// Colour when standard output is a terminal and `NO_COLOR` is not set.
    #[default]
    Auto,
    /// Always colour.
    Always,
    /// Never colour.
    Never,
}

impl ColorChoice {
    /// Whether to colour standard output. `NO_COLOR` (any non-empty value,
    /// see no-color.org) turns `auto` off, not an explicit `always`.
    pub fn enabled(self) -> bool {
        match self {
            ColorChoice::Always => true,
            ColorChoice::Never => false,
            ColorChoice::Auto => {
                std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty()) && std::io::stdout().is_terminal()
            }
        }
    }
}

/// Text styles of the console; each is empty without colour.
#[derive(Clone, Copy, Debug, Default)]
pub struct Style {
    on: bool,
}

impl Style {
    /// A style that colours when `on`.
    pub fn new(on: bool) -> Style {
        Style { on }
    }

    fn paint(self, code: &str, text: &str) -> String {
        if self.on {
            format!("\x1b[{code}m{text}\x1b[0m")
        } else {
            text.to_string()
        }
    }

    /// White's pieces: bold.
    pub fn white(self, text: &str) -> String {
        self.paint("1;97", text)
    }

    /// Black's pieces: bold red, as on most physical boards' dark pieces
    /// drawn on a dark terminal.
    pub fn black(self, text: &str) -> String {
        self.paint("1;31", text)
    }

    /// What matters most in an output (the best move).
    pub fn strong(self, text: &str) -> String {
        self.paint("1", text)
    }

    /// Secondary text (legends, square numbers).
    pub fn dim(self, text: &str) -> String {
        self.paint("2", text)
    }
}

/// The side to move in words.
pub fn side_name(color: Color) -> &'static str {
    match color {
        Color::White => "White",
        Color::Black => "Black",
    }
}

/// A board diagram, Black at the top as in printed diagrams: `w`/`b` men,
/// `W`/`B` kings, `.` an empty playing square; beside it the numbers of the
/// playing squares; then the side to move and the FEN.
pub fn diagram(pos: &Position, style: Style) -> String {
    let mut out = String::new();
    for row in 0..10u8 {
        let mut board = String::new();
        let mut legend = String::new();
        for col in 0..10u8 {
            // Square 1 is the second square of the top row; rows alternate.
            let dark = (row + col) % 2 == 1;
            if !dark {
                board.push_str("  ");
                legend.push_str("   ");
                continue;
            }
            let sq = row * 5 + col / 2 + 1;
            let cell = match pos.piece_at(sq) {
                None => ".".to_string(),
                Some(Piece::Man(Color::White)) => style.white("w"),
                Some(Piece::Man(Color::Black)) => style.black("b"),
                Some(Piece::King(Color::White)) => style.white("W"),
                Some(Piece::King(Color::Black)) => style.black("B"),
            };
            board.push(' ');
            board.push_str(&cell);
            legend.push_str(&style.dim(&format!("{sq:>3}")));
        }
        out.push_str(&format!("{board}    {}\n", legend.trim_end()));
    }
    out.push_str(&format!("{} to move\n{}", side_name(pos.side()), pos.to_fen()));
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::position::START_FEN;

    #[test]
    fn diagram_numbers_the_squares_and_names_the_side() {
        let pos = Position::parse("B:W31,K46:B5,K15").unwrap();
        let text = diagram(&pos, Style::new(false));
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines.len(), 12);
        // Square 5 is the top row's last playing square; 46 the bottom's first.
        assert!(lines[0].starts_with("   .   .   .   .   b    "), "{}", lines[0]);
        assert!(lines[0].trim_end().ends_with("  1     2     3     4     5"), "{}", lines[0]);
        assert!(lines[2].contains(" B "), "{}", lines[2]);
        assert!(lines[9].starts_with(" W"), "{}", lines[9]);
        assert!(lines[9].ends_with(" 46    47    48    49    50"), "{}", lines[9]);
        assert_eq!(lines[10], "Black to move");
        assert_eq!(lines[11], pos.to_fen());
        assert!(!text.contains('\x1b'));
    }

    #[test]
    fn colour_only_when_asked() {
        let pos = Position::parse(START_FEN).unwrap();
        assert!(diagram(&pos, Style::new(true)).contains("\x1b[1;31mb\x1b[0m"));
        assert!(ColorChoice::Always.enabled());
        assert!(!ColorChoice::Never.enabled());
    }
}
