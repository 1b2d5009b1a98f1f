//! Command lines split into words the way a POSIX shell would, without running a shell: how `--executor
//! "python3 my_executor.py --flag"` becomes a program and its arguments.
//!
//! Rule enforced here: no expansions of any kind (`$HOME`, `*`, `~` stay as written); whitespace separates
//! words, single quotes keep everything, double quotes keep everything but `\"`, `\\`, `\$` and `` \` ``, and a
//! backslash outside quotes escapes the next character. A quote that does not close is an error, never a guess.

/// Why a command line cannot be split.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Error {
    /// A quote opened and never closed.
    #[error("unclosed {quote} quote in `{command}`")]
    Unclosed {
        /// `single` or `double`.
        quote: &'static str,
        /// The command line.
        command: String,
    },
    /// A backslash with nothing after it.
    #[error("trailing backslash in `{command}`")]
    TrailingBackslash {
        /// The command line.
        command: String,
    },
    /// No words at all.
    #[error("the executor command is empty")]
    Empty,
}

/// The words of `command`.
///
/// # Errors
/// An unclosed quote or a trailing backslash; an empty command.
pub fn split(command: &str) -> Result<Vec<String>, Error> {
    let unclosed = |quote| Error::Unclosed { quote, command: command.to_owned() };
    let mut words = Vec::new();
    let mut word: Option<String> = None;
    let mut chars = command.chars();
    while let Some(c) = chars.next() {
        match c {
            ' ' | '\t' | '\n' => words.extend(word.take()),
            '\'' => {
                let word = word.get_or_insert_with(String::new);
                loop {
                    match chars.next().ok_or_else(|| unclosed("single"))? {
                        '\'' => break,
                        c => word.push(c),
                    }
                }
            }
            '"' => {
                let word = word.get_or_insert_with(String::new);
                loop {
                    match chars.next().ok_or_else(|| unclosed("double"))? {
                        '"' => break,
                        '\\' => match chars.next().ok_or_else(|| unclosed("double"))? {
                            c @ ('"' | '\\' | '$' | '`') => word.push(c),
                            c => word.extend(['\\', c]),
                        },
                        c => word.push(c),
                    }
                }
            }
            '\\' => {
                let escaped = chars.next().ok_or_else(|| Error::TrailingBackslash { command: command.to_owned() })?;
                word.get_or_insert_with(String::new).push(escaped);
            }
            c => word.get_or_insert_with(String::new).push(c),
        }
    }
    words.extend(word);
    if words.is_empty() {
        return Err(Error::Empty);
    }
    Ok(words)
}

/// `words` as one command line that [`split`] reads back as the same words: a word with anything but letters,
/// digits and `-_./:=,+@%` is single-quoted (a `'` inside written `'\''`), an empty word is `''`. What error
/// messages echo, so `python3 -c 'import time; time.sleep(60)'` shows as given, not with its quotes lost.
pub fn join(words: &[String]) -> String {
    let plain = |c: char| c.is_ascii_alphanumeric() || "-_./:=,+@%".contains(c);
    let quoted: Vec<String> = words
        .iter()
        .map(|word| {
            if !word.is_empty() && word.chars().all(plain) {
                word.clone()
            } else {
                format!("'{}'", word.replace('\'', r"'\''"))
            }
        })
        .collect();
    quoted.join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn joined_words_split_back_into_the_same_words_and_plain_ones_stay_unquoted() {
        let words: Vec<String> = ["python3", "-c", "import time; time.sleep(60)", "", "it's", "a\\b"]
            .iter()
            .map(|word| (*word).to_owned())
            .collect();
        let line = join(&words);
        assert_eq!(line, r#"python3 -c 'import time; time.sleep(60)' '' 'it'\''s' 'a\b'"#);
        assert_eq!(split(&line).expect("splits"), words);
        assert_eq!(join(&["target/debug/x".to_owned(), "--store=memory".to_owned()]), "target/debug/x --store=memory");
    }

    proptest::proptest! {
        #[test]
        fn any_words_survive_join_then_split(words in proptest::collection::vec(".{0,12}", 1..6)) {
            proptest::prop_assert_eq!(split(&join(&words)).expect("a joined line splits"), words);
        }
    }

    #[test]
    fn commands_split_like_a_shell_without_expansions() {
        assert_eq!(split("a  b\tc").expect("split"), ["a", "b", "c"]);
        assert_eq!(
            split(r#"python3 "my exec.py" --x='a b' c\ d"#).expect("split"),
            ["python3", "my exec.py", "--x=a b", "c d"]
        );
        assert_eq!(split(r#""a\"b" '$HOME' "#).expect("split"), ["a\"b", "$HOME"]);
        assert_eq!(split(r#""a\nb""#).expect("split"), ["a\\nb"]);
        assert_eq!(split("''").expect("split"), [""]);
    }

    #[test]
    fn unclosed_quotes_trailing_backslashes_and_blank_commands_are_refused() {
        assert_eq!(split("a 'b"), Err(Error::Unclosed { quote: "single", command: "a 'b".into() }));
        assert_eq!(split("a \"b\\"), Err(Error::Unclosed { quote: "double", command: "a \"b\\".into() }));
        assert_eq!(split("a\\"), Err(Error::TrailingBackslash { command: "a\\".into() }));
        assert_eq!(split("   "), Err(Error::Empty));
    }
}
