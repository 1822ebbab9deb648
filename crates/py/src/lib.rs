//! `bloatlab._core`: the thin Python face of the simulation core.
//!
//! `simulate` validates a scenario (JSON text), runs it with the GIL
//! released, and returns the result tables as NumPy arrays that own the
//! simulator's column buffers (no copy, no per-row Python objects).

use bloatlab_core::metrics::tables::Column;
use bloatlab_core::scenario::{Scenario, ScenarioError as CoreScenarioError};
use bloatlab_core::simulation::Simulation;
use numpy::IntoPyArray;
use pyo3::create_exception;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyDict;
use std::time::Instant;

create_exception!(
    _core,
    ScenarioError,
    PyValueError,
    "A scenario field is missing, unknown or out of range; the message names it."
);

fn scenario_error(e: CoreScenarioError) -> PyErr {
    ScenarioError::new_err(e.to_string())
}

fn column_to_py<'py>(py: Python<'py>, c: Column) -> Bound<'py, PyAny> {
    match c {
        Column::F64(v) => v.into_pyarray(py).into_any(),
        Column::U64(v) => v.into_pyarray(py).into_any(),
        Column::U32(v) => v.into_pyarray(py).into_any(),
        Column::U16(v) => v.into_pyarray(py).into_any(),
        Column::U8(v) => v.into_pyarray(py).into_any(),
        Column::Bool(v) => v.into_pyarray(py).into_any(),
    }
}

fn table<'py>(
    py: Python<'py>,
    columns: Vec<(&'static str, Column)>,
) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    for (name, c) in columns {
        d.set_item(name, column_to_py(py, c))?;
    }
    Ok(d)
}

/// Version of the simulation core.
#[pyfunction]
fn version() -> &'static str {
    bloatlab_core::VERSION
}

/// Validates a scenario and returns it resolved (canonical units) as JSON text.
#[pyfunction]
fn resolve(scenario_json: &str) -> PyResult<String> {
    let s = Scenario::from_json(scenario_json).map_err(scenario_error)?;
    Ok(s.to_json().to_string())
}

/// Runs a scenario; see `_core.pyi` for the shape of the result.
#[pyfunction]
fn simulate<'py>(py: Python<'py>, scenario_json: &str) -> PyResult<Bound<'py, PyDict>> {
    let scenario = Scenario::from_json(scenario_json).map_err(scenario_error)?;
    let t0 = Instant::now();
    let out = py.detach(move || Simulation::new(scenario).run());
    let wall = t0.elapsed().as_secs_f64();

    let m = out.metrics;
    let tables = PyDict::new(py);
    tables.set_item("flows", table(py, m.flows.into_columns())?)?;
    tables.set_item("queue", table(py, m.queue.into_columns())?)?;
    tables.set_item("samples", table(py, m.samples.into_columns())?)?;
    tables.set_item("segments", table(py, m.segments.into_columns())?)?;
    let dictionaries = PyDict::new(py);
    dictionaries.set_item("conn", out.conn_names.clone())?;
    dictionaries.set_item("flow", out.conn_names)?;
    dictionaries.set_item("track", ["video", "audio"])?;
    dictionaries.set_item("cc_state", m.state_names.to_vec())?;
    let stats = PyDict::new(py);
    stats.set_item("events", out.stats.events)?;
    stats.set_item("peak_pending_events", out.stats.peak_pending_events)?;
    stats.set_item("packets", out.stats.packets)?;
    stats.set_item("packets_received", out.stats.packets_received)?;
    stats.set_item("packets_dropped", out.stats.packets_dropped)?;
    stats.set_item("packets_in_network", out.stats.packets_in_network)?;
    stats.set_item("sim_time_s", out.stats.sim_time.as_secs_f64())?;
    stats.set_item("wall_time_s", wall)?;

    let result = PyDict::new(py);
    result.set_item("summary", out.summary.to_string())?;
    result.set_item("tables", tables)?;
    result.set_item("dictionaries", dictionaries)?;
    result.set_item("stats", stats)?;
    Ok(result)
}

#[pymodule]
fn _core(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("ScenarioError", m.py().get_type::<ScenarioError>())?;
    m.add_function(wrap_pyfunction!(version, m)?)?;
    m.add_function(wrap_pyfunction!(resolve, m)?)?;
    m.add_function(wrap_pyfunction!(simulate, m)?)?;
    Ok(())
}
