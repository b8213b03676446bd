"""Pure scoring: matching, measures, outcomes, scorecard. No I/O."""
