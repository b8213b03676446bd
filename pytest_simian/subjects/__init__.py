"""Subject adapters: the processes being evaluated, behind one small interface.

Must not import any subject's code: every translation lives on our side of the process boundary.
"""

from pytest_simian.subjects.base import Subject, SubjectContext, SubjectResult, parse_subject_option

__all__ = ["Subject", "SubjectContext", "SubjectResult", "parse_subject_option"]
