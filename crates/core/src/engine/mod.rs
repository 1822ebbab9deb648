//! The discrete-event engine: a scheduler ordered by (time, insertion order),
//! restartable alarms over it, and seeded random-number streams.
//!
//! Nothing here knows about packets. The simulation (`crate::simulation`) owns
//! one [`Scheduler`] and dispatches its events to components by id.

mod alarm;
mod rng;
mod scheduler;

pub use alarm::Alarm;
pub use rng::Rng;
pub use scheduler::Scheduler;
