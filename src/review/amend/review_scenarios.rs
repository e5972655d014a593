//! The scenarios a review runs, made when a worker needs them, and grouped
//! so that a scenario that differs from another in its `profile` alone runs
//! once.
//!
//! A run under a rule set reads the scenario with its `profile` replaced by
//! the rule set's (`under`), so scenarios that differ in nothing else give
//! the same two runs. The exploration families pick the profile last
//! ([`explore::profile_place`]): the strided indices `m`, `m + place`, `m +
//! 2 place` of a family are one scenario under the three profiles, and
//! [`ReviewScenarios::unit`] hands them out together, each index with its
//! own profile (its weight and its place in the order are its own).

use crate::explore::{self, Family};
use crate::profile::ProfileName;
use crate::scenario::Scenario;

/// Where a review's scenarios come from.
#[derive(Debug)]
pub(crate) enum ReviewScenarios<'a> {
    /// A list in memory: each scenario alone (the tests' corpora).
    #[cfg_attr(not(test), allow(dead_code))]
    Listed(&'a [Scenario]),
    /// [`super::scenarios`]`(stride, sample, seed)`, in that order, without
    /// holding the strided part: a scenario of a family is made when it is
    /// run, and again when it is reported.
    Drawn {
        /// One in every `stride` of each family.
        stride: usize,
        /// Each family's layout, in order.
        families: Vec<Strided>,
        /// The drawn scenarios (a seeded sequence: made up front).
        sample: Vec<Scenario>,
    },
}

/// Where a family's strided scenarios sit among the indices and units.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Strided {
    family: Family,
    /// [`explore::profile_place`].
    place: usize,
    /// How many strided scenarios it gives.
    count: usize,
}

/// Scenarios that differ in their `profile` alone: `base` under each
/// member's profile is the scenario at the member's index.
#[derive(Debug)]
pub(crate) struct Unit {
    /// The scenario (its `profile` is any of the members', or of the rule
    /// set it is being run under).
    pub(crate) base: Scenario,
    /// `(index, profile)` in index order.
    pub(crate) members: Vec<(usize, ProfileName)>,
}

impl Unit {
    /// `(base's weight, base's profile)`: what [`Unit::weight_as`] reads.
    pub(crate) fn base_weight(&self) -> ((usize, usize), ProfileName) {
        (super::weight(&self.base), self.base.profile)
    }

    /// The weight of `Unit::scenario``(profile)` from the base's, without
    /// writing it: the scenario's size does not read its `profile`, and the
    /// written scenario holds the profile as one JSON string, so its length
    /// differs from the base's by the two names' (rule
    /// `PERF-REVIEW-UNITS`; a test holds it to the written length).
    pub(crate) fn weight_as(
        ((size, len), base_profile): ((usize, usize), ProfileName),
        profile: ProfileName,
    ) -> (usize, usize) {
        let written = |p: ProfileName| serde_json::to_string(&p).map_or(0, |t| t.len());
        match len {
            usize::MAX => (size, len),
            _ => (size, len - written(base_profile) + written(profile)),
        }
    }

    /// The scenario at a member's index.
    #[cfg(test)]
    pub(crate) fn scenario(&self, profile: ProfileName) -> Scenario {
        Scenario {
            profile,
            ..self.base.clone()
        }
    }
}

const FAMILIES: [Family; 2] = [Family::Single, Family::Pairs];

impl ReviewScenarios<'_> {
    /// The amendment tools' scenarios for `stride`, `sample` and `seed`.
    pub(crate) fn drawn(stride: usize, sample: usize, seed: u64) -> ReviewScenarios<'static> {
        let stride = stride.max(1);
        ReviewScenarios::Drawn {
            stride,
            families: FAMILIES
                .iter()
                .map(|&family| Strided {
                    family,
                    place: explore::profile_place(family),
                    count: explore::family_size(family).div_ceil(stride),
                })
                .collect(),
            sample: crate::generate::scenario::sample(sample, seed),
        }
    }

    /// How many scenarios there are.
    pub(crate) fn len(&self) -> usize {
        match self {
            ReviewScenarios::Listed(list) => list.len(),
            ReviewScenarios::Drawn {
                families, sample, ..
            } => families.iter().map(|f| f.count).sum::<usize>() + sample.len(),
        }
    }

    /// The scenario at `index` (`index < self.len()`).
    pub(crate) fn at(&self, index: usize) -> Scenario {
        match self {
            ReviewScenarios::Listed(list) => list[index].clone(),
            ReviewScenarios::Drawn {
                stride,
                families,
                sample,
            } => {
                let mut i = index;
                for f in families {
                    if i < f.count {
                        return explore::scenario_at(f.family, i * stride);
                    }
                    i -= f.count;
                }
                sample[i].clone()
            }
        }
    }

    /// How many units [`ReviewScenarios::unit`] numbers (some empty).
    pub(crate) fn units(&self) -> usize {
        match self {
            ReviewScenarios::Listed(list) => list.len(),
            ReviewScenarios::Drawn {
                families, sample, ..
            } => families.iter().map(|f| f.place).sum::<usize>() + sample.len(),
        }
    }

    /// Unit `u` (`u < self.units()`), `None` when it has no member: every
    /// index is a member of exactly one unit.
    pub(crate) fn unit(&self, u: usize) -> Option<Unit> {
        match self {
            ReviewScenarios::Listed(list) => Some(Unit {
                base: list[u].clone(),
                members: vec![(u, list[u].profile)],
            }),
            ReviewScenarios::Drawn {
                stride,
                families,
                sample,
            } => {
                let (mut u, mut offset) = (u, 0);
                for &Strided {
                    family,
                    place,
                    count,
                } in families
                {
                    if u < place {
                        let members: Vec<(usize, ProfileName)> = ProfileName::ALL
                            .iter()
                            .enumerate()
                            .map(|(p, &profile)| (p * place + u, profile))
                            .filter(|(n, _)| n % stride == 0)
                            .map(|(n, profile)| (offset + n / stride, profile))
                            .collect();
                        let (_, first) = *members.first()?;
                        let base = Scenario {
                            profile: first,
                            ..explore::scenario_at(family, u)
                        };
                        return Some(Unit { base, members });
                    }
                    u -= place;
                    offset += count;
                }
                Some(Unit {
                    base: sample[u].clone(),
                    members: vec![(offset + u, sample[u].profile)],
                })
            }
        }
    }
}
