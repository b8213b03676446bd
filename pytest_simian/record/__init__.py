"""Run artifacts: audit log, run.json, report files; the join and offline rescoring."""
