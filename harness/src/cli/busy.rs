//! Whether the machine was too busy for a run's verdicts about time.
//!
//! Rule enforced here: a run taken while the load average was at least [`BUSY_PER_CORE`] runnable tasks per core
//! says so on stderr, with the load it saw. Deadlines, leases and answers within a budget are judged in wall time,
//! and an executor starved of CPU answers late, so on such a machine a correct executor can fail those checks.
//! The verdicts themselves are never changed: the warning only tells the reader what to suspect first.

use std::path::Path;

/// Runnable tasks per core, averaged over a minute, from which a run is called busy. A run of `conform` alone
/// keeps it near one per core (its executors mostly wait on the downstream's timers).
const BUSY_PER_CORE: f64 = 3.0;

/// The one-minute load average (Linux's `/proc/loadavg`); `None` where there is none.
pub(crate) fn load() -> Option<f64> {
    let text = std::fs::read_to_string(Path::new("/proc/loadavg")).ok()?;
    text.split_whitespace().next()?.parse().ok()
}

/// The warning for a run that saw the load averages `seen` on `cores` cores, if any of them was busy.
pub(crate) fn warning(seen: &[Option<f64>], cores: usize) -> Option<String> {
    let worst = seen.iter().flatten().copied().fold(f64::NAN, f64::max);
    let per_core = worst / cores.max(1) as f64;
    (per_core >= BUSY_PER_CORE).then(|| {
        format!(
            "callproof: warning: the machine was busy during this run (load average {worst:.1} on {cores} \
             core{}): executors starved of CPU answer late, so a correct one can fail the checks about time \
             (deadlines, leases, answers within a budget); run again with fewer --jobs or on a quieter machine \
             before trusting such a failure",
            if cores == 1 { "" } else { "s" }
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_load_of_three_per_core_or_more_at_either_end_warns_with_the_worst_seen() {
        let warned = warning(&[Some(1.0), Some(6.4)], 2).expect("3.2 per core is busy");
        assert!(warned.contains("load average 6.4 on 2 cores"), "{warned}");
        assert!(warning(&[Some(5.9), Some(2.0)], 2).is_none(), "2.95 per core is not");
        assert!(warning(&[Some(3.0)], 1).is_some_and(|text| text.contains("on 1 core)")));
    }

    #[test]
    fn without_a_load_average_nothing_is_said() {
        assert!(warning(&[None, None], 2).is_none());
        assert!(warning(&[], 2).is_none());
    }

    #[test]
    fn this_machine_has_a_load_average_that_reads_as_a_number() {
        if Path::new("/proc/loadavg").exists() {
            assert!(load().is_some_and(|load| load >= 0.0));
        }
    }
}
