//! A restartable timer over a scheduler whose events cannot be removed.
//!
//! The alarm remembers the deadline its owner wants and the earliest event it
//! has put in the queue. Moving the deadline later costs nothing (the early
//! event fires, finds nothing due, and the owner re-arms — `rearm` or its own
//! `set`); moving it earlier asks for one new event.

use crate::time::Time;

#[derive(Clone, Debug)]
pub struct Alarm {
    deadline: Time,
    pending: Time,
}

impl Default for Alarm {
    fn default() -> Self {
        Alarm {
            deadline: Time::NEVER,
            pending: Time::NEVER,
        }
    }
}

impl Alarm {
    /// Sets the deadline; returns `Some(t)` when the owner must schedule an event at `t`
    /// (never for `Time::NEVER`, which no pending event can be later than).
    #[must_use]
    pub fn set(&mut self, deadline: Time) -> Option<Time> {
        self.deadline = deadline;
        if deadline < self.pending {
            self.pending = deadline;
            Some(deadline)
        } else {
            None
        }
    }

    /// After an event that was not due: the time to schedule a new event at, if any.
    #[must_use]
    pub fn rearm(&mut self) -> Option<Time> {
        self.set(self.deadline)
    }

    /// Call when one of this alarm's events fires at `now`; returns whether the deadline is due.
    /// Afterwards the owner re-arms with `set` (a fired event is no longer pending).
    pub fn on_fire(&mut self, now: Time) -> bool {
        if self.pending <= now {
            self.pending = Time::NEVER;
        }
        self.deadline <= now
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn later_deadline_reuses_the_pending_event_and_earlier_one_asks_for_a_new_one() {
        let mut a = Alarm::default();
        assert_eq!(a.set(Time::from_nanos(100)), Some(Time::from_nanos(100)));
        assert_eq!(a.set(Time::from_nanos(200)), None);
        assert!(!a.on_fire(Time::from_nanos(100)));
        assert_eq!(a.set(Time::from_nanos(200)), Some(Time::from_nanos(200)));
        assert_eq!(a.set(Time::from_nanos(50)), Some(Time::from_nanos(50)));
        assert!(a.on_fire(Time::from_nanos(200)));
    }

    #[test]
    fn an_early_event_rearms_for_the_later_deadline() {
        let mut a = Alarm::default();
        assert_eq!(a.set(Time::from_nanos(100)), Some(Time::from_nanos(100)));
        assert_eq!(a.set(Time::from_nanos(300)), None);
        assert!(!a.on_fire(Time::from_nanos(100)));
        assert_eq!(a.rearm(), Some(Time::from_nanos(300)));
        assert_eq!(a.rearm(), None, "already pending");
        assert_eq!(a.set(Time::NEVER), None);
        assert!(!a.on_fire(Time::from_nanos(300)));
        assert_eq!(a.rearm(), None, "a cleared alarm stays quiet");
    }
}
