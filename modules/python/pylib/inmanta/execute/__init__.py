"""Run-time values of the model as Python code sees them."""
