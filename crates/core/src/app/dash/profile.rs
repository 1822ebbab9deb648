//! TEMPORARY stand-in until the ABR branch lands (not committed).
use crate::time::Duration;
use serde::{Deserialize, Serialize};
#[derive(Clone, Debug, PartialEq, Deserialize, Serialize)]
#[serde(default)]
pub struct Profile {
    #[serde(skip)]
    pub buffer_time_default: Duration,
    #[serde(skip)]
    pub buffer_time_at_top_quality: Duration,
    #[serde(skip)]
    pub buffer_time_at_top_quality_long_form: Duration,
    #[serde(skip)]
    pub long_form_threshold: Duration,
}
impl Default for Profile {
    fn default() -> Self {
        Profile {
            buffer_time_default: Duration::from_secs(12),
            buffer_time_at_top_quality: Duration::from_secs(30),
            buffer_time_at_top_quality_long_form: Duration::from_secs(60),
            long_form_threshold: Duration::from_secs(600),
        }
    }
}
