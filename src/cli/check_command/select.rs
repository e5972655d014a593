//! `check --select/--ignore`: which `CHECK-*` rules report, by rule ID or
//! ID prefix, as ruff selects its rules (decision "Oracle checks: rule
//! selection and the configuration file").

use crate::rule::Rule;

/// One selector: `ALL`, a rule ID, or a prefix of IDs ending at a `-`
/// (`CHECK-PLACEMENT` takes `CHECK-PLACEMENT-SOURCE`; `check-place` takes
/// nothing).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Selector(String);

impl Selector {
    /// Parses a selector, refusing one that names no `CHECK-*` rule.
    pub(crate) fn parse(s: &str) -> Result<Selector, String> {
        let s = s.trim();
        let sel = Selector(s.to_ascii_uppercase());
        if crate::check::rules::ALL
            .iter()
            .any(|(rule, _)| sel.matches(*rule))
        {
            Ok(sel)
        } else {
            Err(format!(
                "`{s}` names no CHECK-* rule (a rule ID, a prefix of IDs such as \
                 CHECK-PLACEMENT, or ALL; `inquiry-model explain --list` lists them)"
            ))
        }
    }

    fn matches(&self, rule: Rule) -> bool {
        let id = rule.id();
        self.0 == "ALL"
            || id == self.0
            || id
                .strip_prefix(self.0.as_str())
                .is_some_and(|rest| rest.starts_with('-'))
    }

    /// How specific the selector is: `ALL` least, then by its length in
    /// `-`-separated segments.
    fn specificity(&self) -> usize {
        match self.0.as_str() {
            "ALL" => 0,
            s => s.split('-').count(),
        }
    }
}

/// The selectors of one layer (the configuration file, then the command
/// line).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Layer {
    /// `select`: when given, the rules of this layer start from these.
    pub(crate) select: Option<Vec<Selector>>,
    /// `ignore`: rules taken out.
    pub(crate) ignore: Vec<Selector>,
}

/// The rules that report, resolved from the layers in order as ruff does:
/// a layer with `select` starts afresh from its selection; within a layer
/// the most specific selector matching a rule decides, and `ignore` wins a
/// tie.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct RuleFilter {
    enabled: Vec<Rule>,
}

impl RuleFilter {
    /// Resolves the layers, first to last.
    pub(crate) fn resolve(layers: &[Layer]) -> RuleFilter {
        let mut enabled: Vec<Rule> = crate::check::rules::ALL.iter().map(|(r, _)| *r).collect();
        for layer in layers {
            let all: Vec<Rule> = crate::check::rules::ALL.iter().map(|(r, _)| *r).collect();
            let base = match &layer.select {
                Some(_) => all,
                None => std::mem::take(&mut enabled),
            };
            enabled = base
                .into_iter()
                .filter(|&rule| {
                    let best = |sels: &[Selector]| {
                        sels.iter()
                            .filter(|s| s.matches(rule))
                            .map(Selector::specificity)
                            .max()
                    };
                    let selected = match &layer.select {
                        Some(sels) => best(sels),
                        // No `select` in this layer: what the layers before
                        // left counts as selected, below any selector.
                        None => Some(0),
                    };
                    match (selected, best(&layer.ignore)) {
                        (None, _) => false,
                        (Some(_), None) => true,
                        (Some(s), Some(i)) => s > i,
                    }
                })
                .collect();
        }
        RuleFilter { enabled }
    }

    /// Whether `rule`'s findings are reported.
    pub(crate) fn reports(&self, rule: Rule) -> bool {
        self.enabled.contains(&rule)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sel(s: &str) -> Selector {
        Selector::parse(s).unwrap()
    }

    /// Rule: CLI-CHECK-SELECT — the most specific selector decides, ignore
    /// wins a tie, and a later layer's `select` starts afresh.
    #[test]
    fn selection_follows_specificity_and_layers() {
        let only_placement = RuleFilter::resolve(&[Layer {
            select: Some(vec![sel("CHECK-PLACEMENT")]),
            ignore: vec![sel("CHECK-PLACEMENT-SOURCE")],
        }]);
        assert!(only_placement.reports(Rule::CheckPlacement));
        assert!(only_placement.reports(Rule::CheckPlacementClosed));
        assert!(!only_placement.reports(Rule::CheckPlacementSource));
        assert!(!only_placement.reports(Rule::CheckPaired));

        // Ignore a family, select one member back: the member is more
        // specific.
        let one_back = RuleFilter::resolve(&[Layer {
            select: Some(vec![sel("ALL"), sel("CHECK-PLACEMENT-SOURCE")]),
            ignore: vec![sel("CHECK-PLACEMENT")],
        }]);
        assert!(one_back.reports(Rule::CheckPlacementSource));
        assert!(!one_back.reports(Rule::CheckPlacement));
        assert!(one_back.reports(Rule::CheckPaired));

        // A tie goes to ignore.
        let tie = RuleFilter::resolve(&[Layer {
            select: Some(vec![sel("CHECK-PAIRED")]),
            ignore: vec![sel("check-paired")],
        }]);
        assert!(!tie.reports(Rule::CheckPaired));

        // The command line's `select` replaces the file's; its `ignore`
        // alone narrows what the file left.
        let file = Layer {
            select: None,
            ignore: vec![sel("CHECK-PAIRED")],
        };
        let cli_select = Layer {
            select: Some(vec![sel("CHECK-PAIRED")]),
            ignore: vec![],
        };
        let both = RuleFilter::resolve(&[file.clone(), cli_select]);
        assert!(both.reports(Rule::CheckPaired));
        let cli_ignore = Layer {
            select: None,
            ignore: vec![sel("CHECK-TURN-SCOPED")],
        };
        let narrowed = RuleFilter::resolve(&[file, cli_ignore]);
        assert!(!narrowed.reports(Rule::CheckPaired));
        assert!(!narrowed.reports(Rule::CheckTurnScoped));
        assert!(narrowed.reports(Rule::CheckPlacement));
    }

    /// Rule: CLI-CHECK-SELECT — a prefix ends at a `-`, and a selector that
    /// names no rule is refused.
    #[test]
    fn selectors_name_rules_or_whole_segments() {
        assert!(Selector::parse("check-place").is_err());
        assert!(Selector::parse("INV-CACHE-KEY-UNIQUE").is_err());
        assert!(Selector::parse("CHECK").is_ok());
        assert!(Selector::parse("all").is_ok());
    }
}
