//! The parse budget of one analysis: tree-sitter's progress checks counted as steps under
//! `Limits::max_parse_steps` (the same count on an idle or a loaded machine), with the
//! wall-clock `max_millis` kept only as a backstop. It says which of the two was crossed.

use super::{Limit, Limits};
use std::time::Instant;

/// Steps spent and the bounds they are spent under.
#[derive(Debug)]
pub struct ParseBudget {
    steps: u64,
    max_steps: u64,
    started: Instant,
    max_millis: u64,
    crossed: Option<Limit>,
}

impl ParseBudget {
    pub fn new(limits: &Limits) -> Self {
        ParseBudget {
            steps: 0,
            max_steps: limits.max_parse_steps,
            started: Instant::now(),
            max_millis: limits.max_millis,
            crossed: None,
        }
    }

    /// One progress check of a parse (every 100 parse operations): counts a step; true when
    /// the parse must stop.
    pub fn step(&mut self) -> bool {
        self.steps += 1;
        if self.steps > self.max_steps {
            self.crossed.get_or_insert(Limit::Steps {
                max: self.max_steps,
            });
        } else if self.over_time() {
            self.crossed.get_or_insert(Limit::Time {
                max_ms: self.max_millis,
            });
        }
        self.crossed.is_some()
    }

    /// The wall-clock backstop was passed.
    pub fn over_time(&self) -> bool {
        self.started.elapsed().as_millis() > u128::from(self.max_millis)
    }

    /// The bound that stopped a parse; the backstop when a parse stopped without one (a parse
    /// cancelled for any other reason is reported as out of time).
    pub fn crossed(&self) -> Limit {
        self.crossed.unwrap_or(Limit::Time {
            max_ms: self.max_millis,
        })
    }

    /// Steps spent so far.
    pub fn steps(&self) -> u64 {
        self.steps
    }
}
