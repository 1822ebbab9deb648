//! Runs one scenario (JSON on stdin or in a file) and prints its summary and
//! run statistics: a Python-free entry point for profiling the core
//! (`cargo run --release --example simulate -- scenario.json`).

use bloatlab_core::scenario::Scenario;
use bloatlab_core::simulation::Simulation;
use std::io::Read;
use std::time::Instant;

fn main() {
    let text = match std::env::args().nth(1) {
        Some(path) => std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}")),
        None => {
            let mut s = String::new();
            std::io::stdin().read_to_string(&mut s).expect("stdin");
            s
        }
    };
    let scenario = Scenario::from_json(&text).unwrap_or_else(|e| {
        eprintln!("{e}");
        std::process::exit(2)
    });
    let t0 = Instant::now();
    let out = Simulation::new(scenario).run();
    let wall = t0.elapsed().as_secs_f64();
    println!("{}", serde_json::to_string_pretty(&out.summary).unwrap());
    eprintln!(
        "wall {wall:.3} s, simulated {:.1} s, {} events (at most {} pending), {} packets ({:.2} M packets/s)",
        out.stats.sim_time.as_secs_f64(),
        out.stats.events,
        out.stats.peak_pending_events,
        out.stats.packets,
        out.stats.packets as f64 / wall / 1e6
    );
}
