//! A command line written back as one string a POSIX shell reads as the same words:
//! Python's `shlex.join`, which the summary's `command` of `lastmile run` uses.

/// One word, quoted when the shell would read it otherwise (`shlex.quote`: a word of
/// letters, digits and `@%+=:,./-_` only stays as it is; anything else is single-quoted,
/// its own single quotes written `'"'"'`).
pub fn quote(word: &str) -> String {
    if word.is_empty() {
        return "''".to_string();
    }
    let safe = word
        .chars()
        .all(|c| c.is_ascii_alphanumeric() || "@%+=:,./-_".contains(c));
    if safe {
        word.to_string()
    } else {
        format!("'{}'", word.replace('\'', "'\"'\"'"))
    }
}

/// The words joined by spaces, each quoted.
pub fn join<S: AsRef<str>>(words: &[S]) -> String {
    words
        .iter()
        .map(|w| quote(w.as_ref()))
        .collect::<Vec<_>>()
        .join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words_are_quoted_as_shlex_quotes_them() {
        // Python: shlex.join(["lastmile-run", "a b.toml", "--set", "name=it's", "", "x@y%z+=:,./-_"])
        assert_eq!(
            join(&[
                "lastmile-run",
                "a b.toml",
                "--set",
                "name=it's",
                "",
                "x@y%z+=:,./-_"
            ]),
            "lastmile-run 'a b.toml' --set 'name=it'\"'\"'s' '' x@y%z+=:,./-_"
        );
        assert_eq!(quote("é"), "'é'");
        assert_eq!(quote("$HOME"), "'$HOME'");
    }
}
