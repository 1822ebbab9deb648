//! `bloatlab._core`: the thin Python face of the simulation core.
use pyo3::prelude::*;

#[pymodule]
fn _core(_m: &Bound<'_, PyModule>) -> PyResult<()> {
    Ok(())
}
