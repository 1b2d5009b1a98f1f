//! Reports people and tools read beyond the human text, JSON and JUnit of [`crate::conform`]: GitHub
//! workflow annotations, and one self-contained HTML page with each scenario's timeline drawn as an SVG
//! sequence diagram.
//!
//! Rule enforced here: every report is a pure function of what a run produced (a [`crate::conform::Report`],
//! a [`crate::repro::Repro`] or a [`crate::mutation::MutationReport`]); nothing is fetched, nothing runs.

pub mod github;
pub mod html;
pub mod mutants;
pub mod sequence;
pub mod svg;
