//! TEMPORARY stand-in until the ABR branch lands (not committed).
use super::*;
use crate::app::dash::profile::Profile;
use serde::{Deserialize, Serialize};
#[derive(Clone, Debug, PartialEq, Deserialize, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum AbrConfig {
    Fixed { level: usize },
}
impl Default for AbrConfig {
    fn default() -> Self {
        AbrConfig::Fixed { level: 0 }
    }
}
struct F(usize);
impl Abr for F {
    fn decide(&mut self, _c: &AbrContext) -> Decision {
        Decision::now(self.0)
    }
    fn estimate_bps(&self) -> Option<f64> {
        None
    }
    fn name(&self) -> &'static str {
        "fixed"
    }
}
impl AbrConfig {
    pub fn build(&self, _v: &Video, _p: &Profile) -> Box<dyn Abr> {
        match self {
            AbrConfig::Fixed { level } => Box::new(F(*level)),
        }
    }
    pub fn validate(&self) -> Result<(), String> {
        Ok(())
    }
}
