//! (placeholder)
use super::*;
#[derive(Clone, Debug, Default, PartialEq, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Params {}
pub struct Reno;
impl Reno { pub fn new(_p: Params, _i: CcInit) -> Self { Reno } }
impl CongestionControl for Reno {
    fn on_ack(&mut self, _: Time, _: &Conn, _: &RateSample) { todo!() }
    fn on_recovery_start(&mut self, _: Time, _: &Conn) { todo!() }
    fn on_rto(&mut self, _: Time, _: &Conn, _: bool) { todo!() }
    fn cwnd(&self) -> u32 { 10 }
    fn pacing_rate(&self) -> Option<Rate> { None }
    fn state_name(&self) -> &'static str { "OPEN" }
    fn metrics(&self) -> CcMetrics { CcMetrics::default() }
}
