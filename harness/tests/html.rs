//! The HTML report: one self-contained page (nothing fetched, no script), pinned by a snapshot with times
//! blanked, written by `run`, `conform`, `repro` and `mutants`, and read by a real browser: headless
//! Chromium loads the page of a failing run and its DOM has the summary table and the failed check drawn on
//! the timeline, at the step where it failed.
//!
//! Chromium is Debian's `chromium` (or `CALLPROOF_CHROMIUM`); `scripts/test` installs it when it can. Without
//! it the browser test prints a loud SKIPPED line and passes, unless `CALLPROOF_REQUIRE_SERVICES=1`.

mod process_support;

use callproof_harness::conform::{self, Options, ScenarioResult};
use callproof_harness::corpus::Corpus;
use callproof_harness::report::html;
use callproof_harness::shipped;
use callproof_harness::subject::InProcess;
use process_support::{REQUIRE_VAR, TempDir, run_callproof};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Arc;

const STORY: &str = "idempotency/duplicate_refund_after_lost_response";
const BUG: &str = "unknown-reexecuted";

/// The page of the story against the bug, built in process.
async fn story_page() -> String {
    let scenarios = shipped::select(&[PathBuf::from(STORY)], &[]).expect("the story");
    let mutant = callproof_executor::mutants::by_name(BUG).expect("a mutant");
    let options = Options { advisory: true, ..Options::default() };
    let factory = Arc::new(InProcess::mutant(&mutant));
    let report = conform::run(factory, scenarios, Corpus::shipped(), &options, None, &|_: &ScenarioResult| {})
        .await
        .expect("runs");
    html::conform(&report)
}

/// `text` with every time blanked: the `class="t"` elements and the JSON `seconds`.
fn timeless(text: &str) -> String {
    let mut out = String::new();
    let mut rest = text;
    while let Some(start) = rest.find("<span class=\"t\">") {
        let open = start + "<span class=\"t\">".len();
        let close = rest[open..].find("</span>").map_or(rest.len(), |end| open + end);
        out.push_str(&rest[..open]);
        out.push_str("[time]");
        rest = &rest[close..];
    }
    out.push_str(rest);
    out.lines()
        .map(|line| match line.find("&quot;seconds&quot;: ") {
            Some(at) => {
                format!("{}&quot;seconds&quot;: [time]{}", &line[..at], if line.ends_with(',') { "," } else { "" })
            }
            None => line.to_owned(),
        })
        .collect::<Vec<_>>()
        .join("\n")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_page_of_a_failing_run_is_self_contained_and_matches_its_snapshot() {
    let page = story_page().await;
    for outside in ["<script", "<link", "src=", "@import", "url(http", "https://"] {
        assert!(!page.contains(outside), "the page would load something: `{outside}`");
    }
    let links: Vec<&str> = page.match_indices("http://").map(|(at, _)| &page[at..at + 27]).collect();
    assert!(links.iter().all(|link| *link == "http://www.w3.org/2000/svg\""), "{links:?}");
    insta::with_settings!({
        snapshot_path => "../../snapshots/html",
        prepend_module_to_snapshot => false,
        omit_expression => true,
        description => "callproof run --subject mutant:unknown-reexecuted idempotency/duplicate_refund_after_lost_response --html FILE",
    }, {
        insta::assert_snapshot!("duplicate_refund_against_unknown_reexecuted", timeless(&page));
    });
}

#[test]
fn repro_and_mutants_write_pages_with_the_failed_checks_on_their_timelines() {
    let dir = TempDir::new();
    let repro = dir.join("pages/repro.html");
    let ran = run_callproof(&[
        "repro",
        STORY,
        "--subject",
        &format!("mutant:{BUG}"),
        "--html",
        repro.to_str().expect("utf-8"),
    ]);
    assert_eq!(ran.code, 1, "{}", ran.stderr);
    let page = std::fs::read_to_string(&repro).expect("written");
    assert!(page.contains("class=\"failed-check\"") && page.contains("data-check=\"single-effect\""));
    let mutants = dir.join("pages/mutants.html");
    let ran = run_callproof(&[
        "mutants",
        "auth",
        "--mutant",
        "ownership-unchecked",
        "--html",
        mutants.to_str().expect("utf-8"),
    ]);
    assert_eq!(ran.code, 0, "{}", ran.stderr);
    let page = std::fs::read_to_string(&mutants).expect("written");
    assert!(page.contains("<table class=\"mutants\">") && page.contains("data-check=\"tenant-isolation\""), "{page}");
}

/// The browser to use, or `None` after a SKIPPED line.
fn chromium() -> Option<PathBuf> {
    let named = std::env::var_os("CALLPROOF_CHROMIUM").map(PathBuf::from);
    let found = named.or_else(|| {
        ["chromium", "chromium-browser", "google-chrome"].iter().find_map(|name| {
            let path = std::env::var_os("PATH")?;
            std::env::split_paths(&path).map(|folder| folder.join(name)).find(|candidate| candidate.is_file())
        })
    });
    if found.is_none() {
        let required = std::env::var(REQUIRE_VAR).is_ok_and(|value| value == "1");
        assert!(!required, "no Chromium (apt-get install chromium, or set CALLPROOF_CHROMIUM) and {REQUIRE_VAR}=1");
        let _ = writeln!(
            std::io::stderr(),
            "SKIPPED: the HTML report in a real browser: no Chromium on PATH (scripts/test installs Debian's `chromium` as root; set {REQUIRE_VAR}=1 to fail instead)"
        );
    }
    found
}

/// Chromium headless on `page` with `action` (`--dump-dom` or `--screenshot=FILE`): its stdout.
fn headless(browser: &Path, profile: &Path, page: &Path, action: &str) -> String {
    let output = Command::new(browser)
        .args(["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking"])
        .args(["--disable-component-update", "--disable-sync", "--no-first-run", "--window-size=1366,1600"])
        .arg(format!("--user-data-dir={}", profile.display()))
        .arg(action)
        .arg(format!("file://{}", page.display()))
        .output()
        .expect("chromium runs");
    assert!(output.status.success(), "chromium failed: {}", String::from_utf8_lossy(&output.stderr));
    String::from_utf8_lossy(&output.stdout).into_owned()
}

#[test]
fn in_a_real_browser_the_page_of_a_failing_run_shows_the_summary_and_the_failed_check_on_the_timeline() {
    let Some(browser) = chromium() else { return };
    let dir = TempDir::new();
    let page = dir.join("report.html");
    let ran = run_callproof(&[
        "run",
        "--subject",
        &format!("mutant:{BUG}"),
        "idempotency",
        "--html",
        page.to_str().expect("utf-8"),
    ]);
    assert_eq!(ran.code, 1, "{}", ran.stderr);
    let dom = headless(&browser, &dir.join("profile"), &page, "--dump-dom");
    assert!(dom.contains("<section id=\"summary\">") && dom.contains("<table class=\"matrix\">"), "{dom}");
    let cell = format!("title=\"{STORY} · single-effect: fail\"");
    assert!(dom.contains(&cell), "the summary table marks the failed check: {cell}");
    let section = dom.split(&format!("id=\"{}\"", html::slug(STORY))).nth(1).expect("the story's section");
    let section = section.split("<details class=\"scenario").next().expect("up to the next scenario");
    assert!(section.contains("<svg class=\"sequence\""), "the timeline is drawn");
    let mark = section.find("data-check=\"single-effect\"").expect("the failed check is on the timeline");
    let step2 = section.find("step 2 retry").expect("step 2");
    let step3 = section.find("step 3 retry").expect("step 3");
    assert!(step2 < mark && mark < step3, "marked at the step where the second refund committed");
    let shot = dir.join("report.png");
    headless(&browser, &dir.join("profile"), &page, &format!("--screenshot={}", shot.display()));
    let png = std::fs::read(&shot).expect("a screenshot");
    assert!(png.len() > 10_000 && png.starts_with(b"\x89PNG"), "a real picture: {} bytes", png.len());
}
