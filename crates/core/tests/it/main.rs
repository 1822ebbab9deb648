//! Integration tests: whole runs through the public API, one module per behaviour.

mod bbr2;
mod conservation;
mod dash;
mod determinism;
mod engine;
mod path;
mod trace;
mod variants;

use bloatlab_core::scenario::Scenario;
use bloatlab_core::simulation::{Output, Simulation};
use serde_json::Value;

pub fn run(scenario: &Value) -> Output {
    let s = Scenario::from_json(&scenario.to_string()).unwrap_or_else(|e| panic!("{e}"));
    Simulation::new(s).run()
}

/// Writes `text` to a file `name` (its extension picks the format) in a fresh directory, which is
/// removed when the returned guard drops.
pub fn trace_file(name: &str, text: &str) -> (tempfile::TempDir, String) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join(name);
    std::fs::write(&path, text).unwrap();
    let path = path.to_str().unwrap().to_owned();
    (dir, path)
}
