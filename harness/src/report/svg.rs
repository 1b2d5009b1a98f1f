//! A run's [`sequence`] rows drawn as an inline SVG sequence diagram: three lifelines (model, executor,
//! downstream), arrows for calls, requests and answers, a cross where an answer was lost, and notes for
//! commits, kills, the ledger and each failed check.
//!
//! Rule enforced here: the drawing needs nothing but the page it sits in (no script, no font, no network),
//! every text is XML-escaped, long texts wrap inside their row instead of widening the page, and each failed
//! check is a `<g class="failed-check" id=...>` a link can jump to and a test can find.

use super::sequence::{Kind, Lane, Row, Tone};
use std::fmt::Write;

/// Width of the drawing, in pixels: fits a laptop screen beside nothing.
pub const WIDTH: usize = 900;
const LANE_X: [usize; 3] = [110, 450, 790];
const TOP: usize = 56;
const LINE: usize = 15;
/// Average width of a character of the 12 px monospace font, for wrapping.
const CHAR: f64 = 7.2;

/// The arrowheads the diagrams share: include once per page, before any [`diagram`].
pub fn defs() -> &'static str {
    concat!(
        r#"<svg width="0" height="0" style="position:absolute" aria-hidden="true"><defs>"#,
        r##"<marker id="cp-head" viewBox="0 0 10 10" refX="10" refY="5" markerWidth="8" markerHeight="8" orient="auto-start-reverse"><path d="M0,0 L10,5 L0,10 z" fill="#333"/></marker>"##,
        r##"<marker id="cp-open" viewBox="0 0 10 10" refX="10" refY="5" markerWidth="8" markerHeight="8" orient="auto-start-reverse"><path d="M0,0 L10,5 L0,10" fill="none" stroke="#333" stroke-width="1.5"/></marker>"##,
        r##"<marker id="cp-lost" viewBox="0 0 10 10" refX="5" refY="5" markerWidth="10" markerHeight="10"><path d="M1,1 L9,9 M9,1 L1,9" stroke="#c62828" stroke-width="2"/></marker>"##,
        "</defs></svg>"
    )
}

/// `text` with `&`, `<`, `>` and quotes escaped for XML and HTML.
pub fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

fn x(lane: Lane) -> usize {
    LANE_X[lane as usize]
}

/// `text` cut into lines of at most `width` pixels, at spaces where it can be.
fn wrap(text: &str, width: usize) -> Vec<String> {
    let per_line = ((width as f64 / CHAR) as usize).max(8);
    let mut lines = Vec::new();
    let mut current = String::new();
    for word in text.split(' ') {
        let mut word = word.to_owned();
        while word.chars().count() > per_line {
            let head: String = word.chars().take(per_line).collect();
            word = word.chars().skip(per_line).collect();
            if !current.is_empty() {
                lines.push(std::mem::take(&mut current));
            }
            lines.push(head);
        }
        if !current.is_empty() && current.chars().count() + 1 + word.chars().count() > per_line {
            lines.push(std::mem::take(&mut current));
        }
        if !current.is_empty() {
            current.push(' ');
        }
        current.push_str(&word);
    }
    if !current.is_empty() || lines.is_empty() {
        lines.push(current);
    }
    lines
}

/// The diagram of `rows`; failed checks get the ids `{anchor}-{index}`.
pub fn diagram(rows: &[Row], anchor: &str, label: &str) -> String {
    let mut body = String::new();
    let mut y = TOP + 14;
    for row in rows {
        y = match &row.kind {
            Kind::Note(tone) => note(&mut body, row, tone, y, anchor),
            kind => arrow(&mut body, row, kind, y),
        };
    }
    let height = y + 10;
    let mut out = String::new();
    let _ = write!(
        out,
        r#"<svg class="sequence" xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {WIDTH} {height}" width="{WIDTH}" height="{height}" role="img" aria-label="{}" font-family="ui-monospace, SFMono-Regular, Menlo, Consolas, monospace" font-size="12">"#,
        escape(label)
    );
    out.push('\n');
    for (lane, name) in [(Lane::Model, "Model"), (Lane::Executor, "Executor"), (Lane::Downstream, "Downstream")] {
        let x = x(lane);
        let _ = write!(
            out,
            r##"<line x1="{x}" y1="{TOP}" x2="{x}" y2="{height}" stroke="#9e9e9e" stroke-dasharray="4 4"/><rect x="{}" y="8" width="150" height="30" rx="4" fill="#eceff1" stroke="#607d8b"/><text x="{x}" y="28" text-anchor="middle" font-weight="bold" font-family="system-ui, sans-serif" font-size="13">{name}</text>"##,
            x - 75
        );
        out.push('\n');
    }
    out.push_str(&body);
    out.push_str("</svg>");
    out
}

/// An arrow with its label above it; returns the y of the next row.
fn arrow(out: &mut String, row: &Row, kind: &Kind, y: usize) -> usize {
    let (x1, x2) = (x(row.from), x(row.to));
    let lines = wrap(&row.text, x1.abs_diff(x2) - 16);
    let base = y + LINE * lines.len();
    let colour = if row.fault.is_some() || *kind == Kind::Lost { "#c62828" } else { "#212121" };
    let (dash, marker) = match kind {
        Kind::Send => ("", "url(#cp-head)"),
        Kind::Reply => (r#" stroke-dasharray="6 4""#, "url(#cp-open)"),
        _ => (r#" stroke-dasharray="6 4""#, "url(#cp-lost)"),
    };
    let class = match kind {
        Kind::Send => "send",
        Kind::Reply => "reply",
        _ => "lost",
    };
    let _ = write!(out, r#"<g class="{class}">"#);
    for (index, line) in lines.iter().enumerate() {
        let _ = write!(
            out,
            r#"<text x="{}" y="{}" text-anchor="middle" fill="{colour}">{}</text>"#,
            (x1 + x2) / 2,
            y + LINE * index + 10,
            escape(line)
        );
    }
    let _ = write!(
        out,
        r#"<line x1="{x1}" y1="{base}" x2="{x2}" y2="{base}" stroke="{colour}" stroke-width="1.5"{dash} marker-end="{marker}"/></g>"#
    );
    out.push('\n');
    base + 12
}

/// A note over its lanes; a failed check gets its anchor id. Returns the y of the next row.
fn note(out: &mut String, row: &Row, tone: &Tone, y: usize, anchor: &str) -> usize {
    let (left, right) = (x(row.from) - 100, x(row.to) + 100);
    let text = match tone {
        Tone::Failure { .. } => format!("✗ {}", row.text),
        _ => row.text.clone(),
    };
    let lines = wrap(&text, right - left - 16);
    let height = LINE * lines.len() + 8;
    let (fill, stroke, class, id) = match tone {
        Tone::Title => ("#f5f5f5", "#bdbdbd", "title".to_owned(), String::new()),
        Tone::Commit => ("#e8f5e9", "#2e7d32", "commit".to_owned(), String::new()),
        Tone::Killed => ("#fff3e0", "#ef6c00", "killed".to_owned(), String::new()),
        Tone::Ledger => ("#e3f2fd", "#1565c0", "ledger".to_owned(), String::new()),
        Tone::Failure { check, level, index } => (
            "#ffebee",
            "#c62828",
            "failed-check".to_owned(),
            format!(r#" id="{anchor}-{index}" data-check="{}" data-level="{level}""#, escape(check)),
        ),
    };
    let _ = write!(
        out,
        r#"<g class="{class}"{id}><rect x="{left}" y="{y}" width="{}" height="{height}" rx="3" fill="{fill}" stroke="{stroke}"/>"#,
        right - left
    );
    for (index, line) in lines.iter().enumerate() {
        let weight = if class == "failed-check" { r#" font-weight="bold""# } else { "" };
        let _ = write!(out, r#"<text x="{}" y="{}"{weight}>{}</text>"#, left + 8, y + 15 + LINE * index, escape(line));
    }
    out.push_str("</g>\n");
    y + height + 8
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_is_escaped_for_xml() {
        assert_eq!(escape(r#"a<b & "c" 'd'>"#), "a&lt;b &amp; &quot;c&quot; &#39;d&#39;&gt;");
    }

    #[test]
    fn long_texts_wrap_at_spaces_and_very_long_words_are_cut() {
        let lines = wrap("one two three four five six seven", 80);
        assert!(lines.len() > 1 && lines.iter().all(|line| line.chars().count() <= 11), "{lines:?}");
        assert_eq!(lines.join(" "), "one two three four five six seven");
        let cut = wrap(&"x".repeat(30), 72);
        assert_eq!(cut, ["xxxxxxxxxx", "xxxxxxxxxx", "xxxxxxxxxx"]);
        assert_eq!(wrap("", 100), [""]);
    }
}
