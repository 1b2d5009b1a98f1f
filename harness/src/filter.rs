//! `--filter EXPR`: one selection syntax for `run`, `conform`, `mutants`, `explore` and `list`, in the spirit
//! of nextest's filtersets: `path:auth`, `tag:idempotency`, `check:single-effect`, `level:must`, joined with
//! `&` (`and`), `|` (`or`), `!` (`not`) and parentheses.
//!
//! Rule enforced here: a filter is a predicate over (scenario, check) pairs, so every combination means one
//! thing: a scenario runs when at least one of its pairs is selected, and is judged by exactly the checks of
//! its selected pairs. Several `--filter` options are joined with `or`. A check id or level that does not
//! exist is an error before anything runs, never a filter that silently selects nothing.

use crate::checks::{self, Check, Level};
use crate::scenario::Scenario;
use std::fmt;

/// Why a filter expression does not parse.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("--filter `{text}`: {why} (e.g. `path:idempotency & !check:same-key`; see `callproof list --help`)")]
pub struct Error {
    /// The expression.
    pub text: String,
    /// What is wrong, and where.
    pub why: String,
}

/// One predicate or combination.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Expr {
    /// The scenario's id matches: a glob, or a folder prefix (`auth` selects `auth/...`).
    Path(String),
    /// The scenario has this tag.
    Tag(String),
    /// The check's id matches (a glob or an exact id).
    Check(String),
    /// The check has this level.
    Level(Level),
    Not(Box<Expr>),
    And(Box<Expr>, Box<Expr>),
    Or(Box<Expr>, Box<Expr>),
}

/// A parsed `--filter` (the union of every expression given); the default selects everything.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Filter {
    exprs: Vec<Expr>,
    texts: Vec<String>,
}

/// What a filter looks at: a scenario (absent for generated schedules) and a check.
#[derive(Debug, Clone, Copy)]
pub struct Pair<'a> {
    /// The scenario's id and tags, or `None` when there is no scenario file (`explore`).
    pub scenario: Option<(&'a str, &'a [String])>,
    /// The check.
    pub check: &'a Check,
}

/// The tags of a scenario: each folder of its id (`idempotency/crash_after_commit` → `idempotency`), then the
/// tags its file declares, each once.
pub fn tags(scenario: &Scenario) -> Vec<String> {
    let mut tags: Vec<String> = scenario
        .name
        .split('/')
        .collect::<Vec<_>>()
        .split_last()
        .map_or_else(Vec::new, |(_, folders)| folders.iter().map(|folder| (*folder).to_owned()).collect());
    for tag in &scenario.tags {
        if !tags.contains(tag) {
            tags.push(tag.clone());
        }
    }
    tags
}

impl Filter {
    /// Parses every `--filter` given (none selects everything).
    ///
    /// # Errors
    /// [`Error`] naming the expression: a syntax error, an unknown check id or level.
    pub fn parse(texts: &[String]) -> Result<Filter, Error> {
        let exprs = texts.iter().map(|text| parse_one(text)).collect::<Result<Vec<_>, _>>()?;
        Ok(Filter { exprs, texts: texts.to_vec() })
    }

    /// Whether no filter was given.
    pub fn is_everything(&self) -> bool {
        self.exprs.is_empty()
    }

    /// Whether the pair is selected.
    pub fn selects(&self, pair: Pair<'_>) -> bool {
        self.exprs.is_empty() || self.exprs.iter().any(|expr| eval(expr, pair))
    }

    /// The checks of `checks` selected for `scenario`, in their order (empty: the scenario is not selected).
    pub fn checks_for(&self, scenario: &Scenario, checks: &[Check]) -> Vec<Check> {
        let tags = tags(scenario);
        checks
            .iter()
            .filter(|check| self.selects(Pair { scenario: Some((&scenario.name, &tags)), check }))
            .cloned()
            .collect()
    }

    /// The checks selected when there is no scenario file (generated schedules).
    ///
    /// # Errors
    /// [`Error`] when the filter names a path or a tag: generated schedules have neither.
    pub fn checks_without_scenarios(&self, checks: &[Check]) -> Result<Vec<Check>, Error> {
        if let Some(text) =
            self.texts.iter().zip(&self.exprs).find_map(|(text, expr)| names_scenario(expr).then_some(text))
        {
            return Err(Error {
                text: text.clone(),
                why: "generated schedules have no path or tag; filter them by `check:` and `level:` only".to_owned(),
            });
        }
        Ok(checks.iter().filter(|check| self.selects(Pair { scenario: None, check })).cloned().collect())
    }
}

impl fmt::Display for Filter {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let shown: Vec<String> = self.texts.iter().map(|text| format!("({text})")).collect();
        f.write_str(&shown.join(" | "))
    }
}

fn names_scenario(expr: &Expr) -> bool {
    match expr {
        Expr::Path(_) | Expr::Tag(_) => true,
        Expr::Check(_) | Expr::Level(_) => false,
        Expr::Not(inner) => names_scenario(inner),
        Expr::And(left, right) | Expr::Or(left, right) => names_scenario(left) || names_scenario(right),
    }
}

fn eval(expr: &Expr, pair: Pair<'_>) -> bool {
    match expr {
        Expr::Path(pattern) => pair.scenario.is_some_and(|(id, _)| path_matches(pattern, id)),
        Expr::Tag(tag) => pair.scenario.is_some_and(|(_, tags)| tags.iter().any(|own| own == tag)),
        Expr::Check(pattern) => glob(pattern, pair.check.id.as_str()),
        Expr::Level(level) => pair.check.level == *level,
        Expr::Not(inner) => !eval(inner, pair),
        Expr::And(left, right) => eval(left, pair) && eval(right, pair),
        Expr::Or(left, right) => eval(left, pair) || eval(right, pair),
    }
}

/// A path pattern against a scenario id: a glob when it has `*` or `?`, else the id itself or a folder of it.
fn path_matches(pattern: &str, id: &str) -> bool {
    if pattern.contains(['*', '?']) {
        return glob(pattern, id);
    }
    let folder = pattern.trim_end_matches('/');
    id == folder || id.strip_prefix(folder).is_some_and(|rest| rest.starts_with('/'))
}

/// `*` matches any run of characters (`/` included), `?` one character; everything else itself.
fn glob(pattern: &str, text: &str) -> bool {
    let (pattern, text): (Vec<char>, Vec<char>) = (pattern.chars().collect(), text.chars().collect());
    // matched[j]: the pattern so far matches text[..j].
    let mut matched = vec![false; text.len() + 1];
    matched[0] = true;
    for symbol in pattern {
        let mut next = vec![false; text.len() + 1];
        for j in 0..=text.len() {
            next[j] = match symbol {
                '*' => matched[j] || (j > 0 && next[j - 1]),
                '?' => j > 0 && matched[j - 1],
                c => j > 0 && matched[j - 1] && text[j - 1] == c,
            };
        }
        matched = next;
    }
    matched[text.len()]
}

/// A token of the expression language.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Token {
    Open,
    Close,
    And,
    Or,
    Not,
    Predicate(String, String),
}

fn tokens(text: &str) -> Result<Vec<Token>, String> {
    let mut out = Vec::new();
    let mut chars = text.chars().peekable();
    while let Some(&c) = chars.peek() {
        let single = match c {
            c if c.is_whitespace() => None,
            '(' => Some(Token::Open),
            ')' => Some(Token::Close),
            '&' => Some(Token::And),
            '|' => Some(Token::Or),
            '!' => Some(Token::Not),
            _ => {
                let mut word = String::new();
                while let Some(&c) = chars.peek() {
                    if c.is_whitespace() || "()&|!".contains(c) {
                        break;
                    }
                    word.push(c);
                    chars.next();
                }
                out.push(word_token(&word)?);
                continue;
            }
        };
        chars.next();
        out.extend(single);
    }
    Ok(out)
}

fn word_token(word: &str) -> Result<Token, String> {
    match word {
        "and" => return Ok(Token::And),
        "or" => return Ok(Token::Or),
        "not" => return Ok(Token::Not),
        _ => {}
    }
    let Some((kind, value)) = word.split_once(':') else {
        return Err(format!("`{word}` is not `path:`, `tag:`, `check:` or `level:` followed by a value"));
    };
    if value.is_empty() {
        return Err(format!("`{word}` has no value after the colon"));
    }
    Ok(Token::Predicate(kind.to_owned(), value.to_owned()))
}

fn predicate(kind: &str, value: &str) -> Result<Expr, String> {
    match kind {
        "path" => {
            let id = value.strip_prefix("scenarios/").unwrap_or(value);
            Ok(Expr::Path(id.strip_suffix(".toml").unwrap_or(id).to_owned()))
        }
        "tag" => Ok(Expr::Tag(value.to_owned())),
        "check" => {
            let known = checks::all();
            if !value.contains(['*', '?']) && !known.iter().any(|check| check.id.as_str() == value) {
                return Err(format!("unknown check `{value}` (see `callproof list checks`)"));
            }
            Ok(Expr::Check(value.to_owned()))
        }
        "level" => match value.to_ascii_lowercase().as_str() {
            "must" => Ok(Expr::Level(Level::Must)),
            "should" => Ok(Expr::Level(Level::Should)),
            _ => Err(format!("level `{value}` is not `must` or `should`")),
        },
        _ => Err(format!("`{kind}:` is not `path:`, `tag:`, `check:` or `level:`")),
    }
}

fn parse_one(text: &str) -> Result<Expr, Error> {
    let fail = |why: String| Error { text: text.to_owned(), why };
    let tokens = tokens(text).map_err(fail)?;
    let mut parser = Parser { tokens: &tokens, at: 0 };
    let expr = parser.or().map_err(fail)?;
    if parser.at < tokens.len() {
        return Err(fail(format!("unexpected `{}`", shown(&tokens[parser.at]))));
    }
    Ok(expr)
}

fn shown(token: &Token) -> String {
    match token {
        Token::Open => "(".to_owned(),
        Token::Close => ")".to_owned(),
        Token::And => "&".to_owned(),
        Token::Or => "|".to_owned(),
        Token::Not => "!".to_owned(),
        Token::Predicate(kind, value) => format!("{kind}:{value}"),
    }
}

/// Recursive descent: `or := and ('|' and)*`, `and := not ('&' not)*`, `not := '!' not | atom`,
/// `atom := '(' or ')' | predicate`.
struct Parser<'a> {
    tokens: &'a [Token],
    at: usize,
}

impl Parser<'_> {
    fn or(&mut self) -> Result<Expr, String> {
        let mut left = self.and()?;
        while self.tokens.get(self.at) == Some(&Token::Or) {
            self.at += 1;
            left = Expr::Or(Box::new(left), Box::new(self.and()?));
        }
        Ok(left)
    }

    fn and(&mut self) -> Result<Expr, String> {
        let mut left = self.not()?;
        while self.tokens.get(self.at) == Some(&Token::And) {
            self.at += 1;
            left = Expr::And(Box::new(left), Box::new(self.not()?));
        }
        Ok(left)
    }

    fn not(&mut self) -> Result<Expr, String> {
        if self.tokens.get(self.at) == Some(&Token::Not) {
            self.at += 1;
            return Ok(Expr::Not(Box::new(self.not()?)));
        }
        self.atom()
    }

    fn atom(&mut self) -> Result<Expr, String> {
        let token = self.tokens.get(self.at).cloned();
        self.at += 1;
        match token {
            Some(Token::Open) => {
                let inner = self.or()?;
                if self.tokens.get(self.at) != Some(&Token::Close) {
                    return Err("a `(` is not closed".to_owned());
                }
                self.at += 1;
                Ok(inner)
            }
            Some(Token::Predicate(kind, value)) => predicate(&kind, &value),
            Some(other) => Err(format!("expected a predicate or `(`, found `{}`", shown(&other))),
            None => Err("the expression ends where a predicate was expected".to_owned()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check(id: &str) -> Check {
        checks::by_id(id).expect("a registered check")
    }

    fn selects(filter: &str, id: &str, tags: &[&str], check_id: &str) -> bool {
        let tags: Vec<String> = tags.iter().map(|tag| (*tag).to_owned()).collect();
        let filter = Filter::parse(&[filter.to_owned()]).expect("parses");
        filter.selects(Pair { scenario: Some((id, &tags)), check: &check(check_id) })
    }

    #[test]
    fn a_path_is_a_folder_prefix_an_exact_id_or_a_glob() {
        assert!(selects("path:auth", "auth/missing_scope", &[], "single-effect"));
        assert!(selects("path:scenarios/auth/missing_scope.toml", "auth/missing_scope", &[], "single-effect"));
        assert!(!selects("path:auth", "authz/x", &[], "single-effect"), "a prefix stops at a folder boundary");
        assert!(selects("path:*/crash_*", "idempotency/crash_after_commit", &[], "single-effect"));
        assert!(!selects("path:*/crash_?", "idempotency/crash_after_commit", &[], "single-effect"));
    }

    #[test]
    fn tags_checks_and_levels_combine_with_and_or_not_and_parentheses() {
        let id = "idempotency/crash_after_commit";
        assert!(selects("tag:idempotency & check:single-effect", id, &["idempotency"], "single-effect"));
        assert!(!selects("tag:idempotency & !check:single-effect", id, &["idempotency"], "single-effect"));
        assert!(selects("tag:auth or level:should", id, &["idempotency"], "corpus-details"));
        assert!(!selects("tag:auth | level:should", id, &["idempotency"], "single-effect"));
        assert!(selects("not (tag:auth | check:same-*)", id, &["idempotency"], "single-effect"));
        assert!(!selects("!(tag:auth | check:same-*)", id, &["idempotency"], "same-key"));
        assert!(selects("level:MUST", id, &[], "single-effect"), "levels ignore case");
    }

    #[test]
    fn several_filters_are_joined_with_or_and_none_selects_everything() {
        let filter = Filter::parse(&["check:same-key".to_owned(), "check:single-effect".to_owned()]).expect("ok");
        let tags = Vec::new();
        let selected =
            |filter: &Filter, id| filter.selects(Pair { scenario: Some(("a/b", &tags[..])), check: &check(id) });
        assert!(selected(&filter, "same-key") && selected(&filter, "single-effect"));
        assert!(!selected(&filter, "tenant-isolation"));
        assert!(selected(&Filter::default(), "tenant-isolation") && Filter::default().is_everything());
    }

    #[test]
    fn mistakes_are_errors_that_name_the_expression_and_what_is_wrong() {
        let cases = [
            ("check:nope", "unknown check `nope`"),
            ("level:may", "level `may` is not `must` or `should`"),
            ("name:x", "`name:` is not"),
            ("auth", "`auth` is not `path:`"),
            ("(tag:a", "a `(` is not closed"),
            ("tag:a &", "the expression ends"),
            ("tag:a tag:b", "unexpected `tag:b`"),
            ("path:", "has no value"),
        ];
        for (text, why) in cases {
            let error = Filter::parse(&[text.to_owned()]).expect_err(text);
            assert!(error.to_string().starts_with(&format!("--filter `{text}`: ")), "{error}");
            assert!(error.why.contains(why), "{text}: {error}");
        }
    }

    #[test]
    fn generated_schedules_take_only_check_and_level_filters() {
        let all = checks::all();
        let musts = Filter::parse(&["level:must".to_owned()]).expect("ok").checks_without_scenarios(&all);
        assert!(musts.expect("no path").iter().all(|check| check.level == Level::Must));
        let error =
            Filter::parse(&["tag:auth | check:same-key".to_owned()]).expect("ok").checks_without_scenarios(&all);
        assert!(error.expect_err("a tag").why.contains("no path or tag"));
    }

    #[test]
    fn a_scenario_is_tagged_with_its_folders_and_judged_by_its_selected_checks_only() {
        let scenarios = crate::shipped::scenarios().expect("shipped");
        let story = scenarios
            .iter()
            .find(|scenario| scenario.name == "idempotency/duplicate_refund_after_lost_response")
            .expect("the story");
        assert_eq!(tags(story), ["idempotency"]);
        let filter = Filter::parse(&["tag:idempotency & level:must".to_owned()]).expect("ok");
        let chosen = filter.checks_for(story, &checks::all());
        assert!(!chosen.is_empty() && chosen.iter().all(|check| check.level == Level::Must));
        let auth = scenarios.iter().find(|scenario| scenario.name.starts_with("auth/")).expect("an auth scenario");
        assert!(filter.checks_for(auth, &checks::all()).is_empty());
    }

    #[test]
    fn a_glob_star_spans_any_run_and_a_question_mark_one_character() {
        assert!(glob("*", "") && glob("a*c", "abbc") && glob("a*c", "ac") && glob("a?c", "abc"));
        assert!(!glob("a?c", "ac") && !glob("a*d", "abc") && !glob("", "a"));
    }
}
