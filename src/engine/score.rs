//! The score scale: every bound and band of a score, how scores go into and
//! out of the transposition table, and how they are written.
//!
//! Scores are hundredths of a man for the side to move. From the bottom up:
//!
//! | scores                         | meaning                                        |
//! |--------------------------------|------------------------------------------------|
//! | `-EVAL_LIMIT..=EVAL_LIMIT`     | the static evaluation (never more)             |
//! | `TB_BAND..TB_WIN`              | a table win, `TB_WIN - ply` (losses: negated)  |
//! | `WIN_BAND..=WIN`               | a win in `WIN - score` plies (losses: negated) |
//! | `INFINITY`                     | beyond every score: the open window's edges    |

/// A score in hundredths of a man, for the side to move.
pub type Score = i32;

/// The static evaluation never goes beyond this, so that it stays clear of
/// the table and win bands.
pub const EVAL_LIMIT: Score = 7_000;
/// A table win `ply` plies from the root scores `TB_WIN - ply`: 90.00 minus
/// the ply, inside the 80-90 band the Hub protocol gives to database wins.
pub const TB_WIN: Score = 9_000;
/// Scores from here up to [`TB_WIN`] are table wins.
pub const TB_BAND: Score = TB_WIN - 1_000;
/// The score of a win now; a win in `n` plies scores `WIN - n`.
pub const WIN: Score = 10_000;
/// Scores at least this large are wins (or, negated, losses) with a distance.
pub const WIN_BAND: Score = WIN - 1_000;
/// Larger than any score.
pub const INFINITY: Score = 32_000;

const _: () = assert!(EVAL_LIMIT < TB_BAND && TB_WIN <= WIN_BAND && WIN < INFINITY);

/// The score of a side that is mated (has no move) `ply` plies from the root.
#[inline(always)]
pub const fn lost_in(ply: usize) -> Score {
    -(WIN - ply as Score)
}

/// The score of a table win found `ply` plies from the root.
#[inline(always)]
pub const fn table_win(ply: usize) -> Score {
    TB_WIN - ply as Score
}

/// Whether `score` is a win or loss with a distance (not a table score).
#[inline(always)]
pub const fn is_decisive(score: Score) -> bool {
    score >= WIN_BAND || score <= -WIN_BAND
}

/// A score as the table stores it: a win's distance counts from the stored
/// node instead of the root, so that the entry is right at any ply.
///
/// Table scores (`TB_WIN - ply`) are stored as they are. The tables know only
/// win, draw or loss, so their ply is no distance to the end: it only makes
/// the search prefer a table win reached sooner. Read back at another ply a
/// table win stays a table win inside its band, which is all the search
/// relies on.
#[inline(always)]
pub fn to_tt(score: Score, ply: usize) -> Score {
    if score >= WIN_BAND {
        score + ply as Score
    } else if score <= -WIN_BAND {
        score - ply as Score
    } else {
        score
    }
}

/// The inverse of [`to_tt`].
#[inline(always)]
pub fn from_tt(score: Score, ply: usize) -> Score {
    if score >= WIN_BAND {
        score - ply as Score
    } else if score <= -WIN_BAND {
        score + ply as Score
    } else {
        score
    }
}

/// A score as the Hub protocol and the CLI print it: men with two decimals;
/// a win in `n` plies prints `100 - n/100` (`99.97`), a loss its negation.
pub fn format(score: Score) -> String {
    let sign = if score < 0 { "-" } else { "" };
    let a = score.unsigned_abs();
    format!("{sign}{}.{:02}", a / 100, a % 100)
}

/// [`format`] with what a person needs to read it: `(win in 7)`,
/// `(table loss)` and the like.
pub fn describe(score: Score) -> String {
    let s = format(score);
    let table_band = TB_BAND..=TB_WIN;
    if table_band.contains(&score) {
        format!("{s} (table win)")
    } else if table_band.contains(&-score) {
        format!("{s} (table loss)")
    } else if score >= WIN_BAND {
        format!("{s} (win in {})", WIN - score)
    } else if score <= -WIN_BAND {
        format!("{s} (loss in {})", WIN + score)
    } else {
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn win_distances_survive_the_table() {
        let win_in_7_from_root = WIN - 7;
        let stored = to_tt(win_in_7_from_root, 3);
        assert_eq!(from_tt(stored, 3), win_in_7_from_root);
        assert_eq!(from_tt(stored, 1), WIN - 5);
        assert_eq!(from_tt(to_tt(lost_in(6), 2), 4), lost_in(8));
        // Table and evaluation scores are stored as they are.
        assert_eq!(to_tt(table_win(5), 3), table_win(5));
        assert_eq!(from_tt(-EVAL_LIMIT, 9), -EVAL_LIMIT);
    }

    #[test]
    fn formats() {
        assert_eq!(format(0), "0.00");
        assert_eq!(format(-5), "-0.05");
        assert_eq!(format(WIN - 3), "99.97");
        assert_eq!(describe(WIN - 3), "99.97 (win in 3)");
        assert_eq!(describe(lost_in(4)), "-99.96 (loss in 4)");
        assert_eq!(describe(table_win(2)), "89.98 (table win)");
        assert_eq!(describe(-table_win(2)), "-89.98 (table loss)");
        assert_eq!(describe(123), "1.23");
    }
}
