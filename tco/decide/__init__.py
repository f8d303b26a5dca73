"""The decision on a Result (issue 26): the rules (tco.decide.rules) and the recommendation as
facts with reason codes (tco.decide.recommend). The exporters word them
(tco.exporters.decision_words); nothing here writes prose or formats a number."""

from __future__ import annotations

from .recommend import Decision, Part, Reason, recommend, recommend_option, rented_at

__all__ = ["Decision", "Part", "Reason", "recommend", "recommend_option", "rented_at"]
