//! Reading lines from another process with a bound on each: a peer that
//! writes one endless line must not fill our memory.

use std::io::{BufRead, Read};

/// What [`read_line`] found.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Line {
    /// A whole line (its newline kept, if it had one) is in the buffer.
    Whole,
    /// The line was longer than the bound: its first `max` bytes are in the
    /// buffer, and the rest has been read and dropped.
    TooLong,
    /// The input ended (or failed) before a line.
    End,
}

/// Reads one line of at most `max` bytes into `buf` (cleared first); the
/// rest of a longer line is skipped a bounded piece at a time, since it may
/// never end. A line cut by the end of the input before its newline is
/// [`Line::End`] when it was too long, [`Line::Whole`] otherwise.
pub fn read_line(input: &mut impl BufRead, buf: &mut Vec<u8>, max: usize) -> Line {
    buf.clear();
    match input.take(max as u64).read_until(b'\n', buf) {
        Ok(0) | Err(_) => return Line::End,
        Ok(_) => {}
    }
    if buf.last() == Some(&b'\n') || buf.len() < max {
        return Line::Whole;
    }
    let mut rest = Vec::new();
    loop {
        rest.clear();
        match input.take(max as u64).read_until(b'\n', &mut rest) {
            Ok(0) | Err(_) => return Line::End,
            Ok(_) if rest.last() == Some(&b'\n') => return Line::TooLong,
            Ok(_) => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn long_lines_are_cut_and_skipped() {
        let mut text = b"short\n".to_vec();
        text.extend(std::iter::repeat_n(b'x', 25));
        text.extend(b"\nlast");
        let mut input = std::io::Cursor::new(text);
        let mut buf = Vec::new();
        assert_eq!(read_line(&mut input, &mut buf, 10), Line::Whole);
        assert_eq!(buf, b"short\n");
        assert_eq!(read_line(&mut input, &mut buf, 10), Line::TooLong);
        assert_eq!(buf, b"xxxxxxxxxx");
        assert_eq!(read_line(&mut input, &mut buf, 10), Line::Whole);
        assert_eq!(buf, b"last");
        assert_eq!(read_line(&mut input, &mut buf, 10), Line::End);
        let mut endless = std::io::Cursor::new(vec![b'y'; 35]);
        assert_eq!(read_line(&mut endless, &mut buf, 10), Line::End);
    }
}
