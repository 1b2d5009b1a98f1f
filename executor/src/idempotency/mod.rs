//! Stage 3, claim idempotency: one business operation, one key, one record, at most one execution at a time.
//! The data model lives in `state`, the key in `key`, and the protocol that runs the stage in `claim`.
//!
//! Rule enforced here: before a side effect, the executor owns the key's record in IN_PROGRESS; a duplicate
//! never executes concurrently, a settled record answers from storage, and an UNKNOWN record is reconciled
//! before anything is sent again.

pub(crate) mod claim;
mod key;
mod state;

pub use claim::replayed;
pub use key::{KeyInput, RECORD_FORMAT, derive_key};
pub use state::{IllegalTransition, NewRecord, Record, State, Update, Version, check_transition, is_legal};
