"""Fault engines: how a FaultSpec becomes a broken cluster and is put back.

Every fault goes through :mod:`pytest_simian.lifecycle` (audit, efficacy gate, clear); an engine
only supplies the driver.
"""
