"""pytest-simian: fault scenarios as pytest items."""
__version__ = "0.1.0"
