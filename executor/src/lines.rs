//! Line reading for the callproof/1 protocol (JSON lines over stdio), shared by both ends.
//!
//! Rule enforced here: a line is read in bounded pieces and refused once it passes [`MAX_LINE_BYTES`], so a peer
//! that never sends a newline cannot make the reader allocate without bound; a line is UTF-8, ends at `\n`
//! (a `\r` before it is dropped), and a stream that ends in the middle of a line is an error, not a last line.

use tokio::io::{AsyncBufRead, AsyncBufReadExt};

/// The longest protocol line either end accepts (16 MiB: a 1 MiB argument string escaped, with room to spare).
pub const MAX_LINE_BYTES: usize = 16 * 1024 * 1024;

/// Why a line could not be read. Each end words it for its own reader (stdin, or the executor's stdout).
#[derive(Debug)]
pub enum LineError {
    /// The stream failed.
    Read(std::io::Error),
    /// The stream ended in the middle of a line.
    Cut,
    /// The line passed [`MAX_LINE_BYTES`].
    TooLong,
    /// The line is not UTF-8.
    NotUtf8,
}

/// One line without its newline; `None` at the end of the stream.
pub async fn read_line(reader: &mut (impl AsyncBufRead + Unpin)) -> Result<Option<String>, LineError> {
    let mut line = Vec::new();
    loop {
        let buffer = reader.fill_buf().await.map_err(LineError::Read)?;
        if buffer.is_empty() {
            return if line.is_empty() { Ok(None) } else { Err(LineError::Cut) };
        }
        let (taken, done) = match buffer.iter().position(|byte| *byte == b'\n') {
            Some(end) => (end + 1, true),
            None => (buffer.len(), false),
        };
        line.extend_from_slice(&buffer[..taken]);
        reader.consume(taken);
        if line.len() > MAX_LINE_BYTES {
            return Err(LineError::TooLong);
        }
        if done {
            line.pop();
            if line.last() == Some(&b'\r') {
                line.pop();
            }
            return String::from_utf8(line).map(Some).map_err(|_| LineError::NotUtf8);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn lines_come_without_their_ends_and_a_cut_or_bad_line_is_an_error() {
        let mut reader: &[u8] = b"one\r\ntwo\nthr";
        assert_eq!(read_line(&mut reader).await.ok(), Some(Some("one".to_owned())));
        assert_eq!(read_line(&mut reader).await.ok(), Some(Some("two".to_owned())));
        assert!(matches!(read_line(&mut reader).await, Err(LineError::Cut)));
        let mut empty: &[u8] = b"";
        assert!(matches!(read_line(&mut empty).await, Ok(None)));
        let mut bad: &[u8] = b"\xff\n";
        assert!(matches!(read_line(&mut bad).await, Err(LineError::NotUtf8)));
    }

    #[tokio::test]
    async fn a_line_past_the_limit_is_refused_before_it_is_all_read() {
        let endless = tokio::io::repeat(b'x');
        let mut reader = tokio::io::BufReader::new(endless);
        assert!(matches!(read_line(&mut reader).await, Err(LineError::TooLong)));
    }
}
