//! Event queue: a binary min-heap keyed by (time, sequence number).
//!
//! Ties at the same nanosecond are broken in insertion order, so a run is a
//! pure function of its inputs. Events cannot be removed; components that
//! restart timers use [`super::Alarm`] and ignore events that went stale.

use crate::time::Time;
use std::cmp::Ordering;
use std::collections::BinaryHeap;

struct Entry<E> {
    /// The time in the high 64 bits, the sequence number in the low: one comparison orders
    /// entries by time, then by insertion.
    key: u128,
    event: E,
}

impl<E> Entry<E> {
    fn at(&self) -> Time {
        Time::from_nanos((self.key >> 64) as u64)
    }
}

impl<E> PartialEq for Entry<E> {
    fn eq(&self, other: &Self) -> bool {
        self.key == other.key
    }
}
impl<E> Eq for Entry<E> {}
impl<E> PartialOrd for Entry<E> {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}
impl<E> Ord for Entry<E> {
    /// Reversed so that `BinaryHeap` (a max-heap) pops the earliest entry.
    fn cmp(&self, other: &Self) -> Ordering {
        other.key.cmp(&self.key)
    }
}

/// A deterministic event queue with a clock that only moves forward.
pub struct Scheduler<E> {
    heap: BinaryHeap<Entry<E>>,
    next_seq: u64,
    now: Time,
    popped: u64,
    peak: usize,
}

impl<E> Default for Scheduler<E> {
    fn default() -> Self {
        Self::new()
    }
}

impl<E> Scheduler<E> {
    pub fn new() -> Self {
        Scheduler {
            heap: BinaryHeap::with_capacity(1024),
            next_seq: 0,
            now: Time::ZERO,
            popped: 0,
            peak: 0,
        }
    }

    /// The time of the event being processed (or of the last one).
    pub fn now(&self) -> Time {
        self.now
    }

    /// Schedules `event` at `at`. Scheduling in the past is a logic error.
    pub fn schedule(&mut self, at: Time, event: E) {
        debug_assert!(
            at >= self.now,
            "event scheduled in the past: {at:?} < {:?}",
            self.now
        );
        self.heap.push(Entry {
            key: u128::from(at.as_nanos()) << 64 | u128::from(self.next_seq),
            event,
        });
        self.next_seq += 1;
        self.peak = self.peak.max(self.heap.len());
    }

    /// Pops the earliest event at or before `until` and advances the clock to it.
    pub fn pop_until(&mut self, until: Time) -> Option<(Time, E)> {
        if self.heap.peek()?.at() > until {
            return None;
        }
        let e = self.heap.pop()?;
        self.now = e.at();
        self.popped += 1;
        Some((self.now, e.event))
    }

    /// Number of events processed so far.
    pub fn events_processed(&self) -> u64 {
        self.popped
    }

    /// The most events that were pending at once (stale timer events included).
    pub fn peak_pending(&self) -> usize {
        self.peak
    }

    /// Moves the clock forward without an event (end of run).
    pub fn advance_to(&mut self, t: Time) {
        if t > self.now {
            self.now = t;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use std::collections::BTreeMap;

    #[test]
    fn same_time_events_pop_in_insertion_order() {
        let mut s = Scheduler::new();
        for i in 0..5 {
            s.schedule(Time::from_nanos(10), i);
        }
        s.schedule(Time::from_nanos(5), 99);
        let order: Vec<_> =
            std::iter::from_fn(|| s.pop_until(Time::NEVER).map(|(_, e)| e)).collect();
        assert_eq!(order, vec![99, 0, 1, 2, 3, 4]);
    }

    #[test]
    fn pop_until_takes_an_event_at_its_bound_not_after_and_counts_what_it_popped() {
        let mut s = Scheduler::new();
        for (t, e) in [(10, 'a'), (20, 'b'), (20, 'c'), (21, 'd')] {
            s.schedule(Time::from_nanos(t), e);
        }
        assert_eq!(s.peak_pending(), 4);
        assert_eq!(s.pop_until(Time::from_nanos(9)), None);
        assert_eq!(
            s.pop_until(Time::from_nanos(20)),
            Some((Time::from_nanos(10), 'a'))
        );
        assert_eq!(
            s.pop_until(Time::from_nanos(20)),
            Some((Time::from_nanos(20), 'b'))
        );
        assert_eq!(
            s.pop_until(Time::from_nanos(20)),
            Some((Time::from_nanos(20), 'c'))
        );
        assert_eq!(s.pop_until(Time::from_nanos(20)), None);
        assert_eq!((s.now(), s.events_processed()), (Time::from_nanos(20), 3));
        s.schedule(Time::from_nanos(30), 'e');
        assert_eq!(s.peak_pending(), 4, "the most at once, not the total");
        // the clock moves forward only
        s.advance_to(Time::from_nanos(25));
        assert_eq!(s.now(), Time::from_nanos(25));
        s.advance_to(Time::from_nanos(22));
        assert_eq!(s.now(), Time::from_nanos(25));
    }

    proptest! {
        /// The heap agrees with a BTreeMap keyed by (time, seq) on every interleaving of pushes and pops.
        #[test]
        fn heap_matches_ordered_map(ops in proptest::collection::vec((any::<bool>(), 0u64..50), 1..300)) {
            let mut s = Scheduler::new();
            let mut model: BTreeMap<(u64, u64), u32> = BTreeMap::new();
            let mut seq = 0;
            for (i, (push, dt)) in ops.into_iter().enumerate() {
                if push {
                    let at = s.now().as_nanos() + dt;
                    s.schedule(Time::from_nanos(at), i as u32);
                    model.insert((at, seq), i as u32);
                    seq += 1;
                } else {
                    let got = s.pop_until(Time::NEVER);
                    let want = model.pop_first();
                    prop_assert_eq!(got.map(|(t, e)| (t.as_nanos(), e)), want.map(|((t, _), e)| (t, e)));
                }
            }
        }
    }
}
