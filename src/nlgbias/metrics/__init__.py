"""Metrics, one module each, in the style of Hugging Face ``evaluate`` measurements:
a plain ``compute(texts, ...) -> DataFrame`` with documented inputs and outputs and a
reference to the paper section it implements."""
