//! One slice of many: how `--partition k/n` splits a suite across CI jobs, or exploration cases across
//! machines.
//!
//! Rule enforced here: the split is deterministic and exhaustive. Items are numbered from 0 in a fixed order
//! (scenarios sorted by id, cases by number) and item `i` belongs to slice `i mod n + 1`, so the n slices of a
//! CI matrix cover everything exactly once, whatever machine runs each.

use crate::scenario::Scenario;
use std::fmt;
use std::str::FromStr;

/// The k-th of n slices, both counted from 1.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Partition {
    /// This slice, from 1.
    pub index: usize,
    /// How many slices.
    pub count: usize,
}

/// A `--partition` that is not `k/n` with 1 ≤ k ≤ n.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0:?} is not k/n with 1 ≤ k ≤ n (e.g. 2/4)")]
pub struct Error(pub String);

impl Partition {
    /// Everything: the one slice of one.
    pub const WHOLE: Partition = Partition { index: 1, count: 1 };

    /// Whether item `item` (numbered from 0) belongs to this slice.
    pub fn contains(&self, item: usize) -> bool {
        item % self.count.max(1) + 1 == self.index
    }

    /// How many of `items` items (numbered from 0) belong to this slice.
    pub fn size_of(&self, items: usize) -> usize {
        (0..items).filter(|item| self.contains(*item)).count()
    }

    /// This slice of `scenarios`, sorted by id.
    pub fn select(&self, mut scenarios: Vec<Scenario>) -> Vec<Scenario> {
        scenarios.sort_by(|a, b| a.name.cmp(&b.name));
        scenarios.into_iter().enumerate().filter(|(item, _)| self.contains(*item)).map(|(_, s)| s).collect()
    }
}

impl Default for Partition {
    fn default() -> Partition {
        Partition::WHOLE
    }
}

impl FromStr for Partition {
    type Err = Error;

    fn from_str(text: &str) -> Result<Partition, Error> {
        let bad = || Error(text.to_owned());
        let (index, count) = text.split_once('/').ok_or_else(bad)?;
        let index: usize = index.trim().parse().map_err(|_| bad())?;
        let count: usize = count.trim().parse().map_err(|_| bad())?;
        if index == 0 || count == 0 || index > count {
            return Err(bad());
        }
        Ok(Partition { index, count })
    }
}

impl fmt::Display for Partition {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}/{}", self.index, self.count)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn partitions_parse_as_k_of_n_and_refuse_anything_else() {
        assert_eq!("2/3".parse::<Partition>(), Ok(Partition { index: 2, count: 3 }));
        assert_eq!(" 1 / 1 ".parse::<Partition>(), Ok(Partition::WHOLE));
        for bad in ["0/3", "4/3", "3", "a/b", "1/0", "-1/2", ""] {
            let error = bad.parse::<Partition>().expect_err(bad);
            assert!(error.to_string().contains("is not k/n"), "{error}");
        }
        assert_eq!(Partition { index: 2, count: 4 }.to_string(), "2/4");
    }

    #[test]
    fn the_slices_of_a_partition_cover_every_item_exactly_once() {
        for count in 1..=5 {
            for item in 0..23 {
                let owners = (1..=count).filter(|index| Partition { index: *index, count }.contains(item)).count();
                assert_eq!(owners, 1, "item {item} of {count} slices");
            }
            let sizes: usize = (1..=count).map(|index| Partition { index, count }.size_of(23)).sum();
            assert_eq!(sizes, 23);
        }
        assert!(Partition { index: 2, count: 3 }.contains(4) && !Partition { index: 2, count: 3 }.contains(5));
    }
}
