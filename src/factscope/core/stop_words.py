"""English function words: the words that say nothing about what a text is about."""

from __future__ import annotations

_STOP_WORD_TEXT = """
    a about above after again against all also am an and any are as at be because been before being below between
    both but by can could did do does doing down during each either few for from further had has have having he
    her here hers herself him himself his how i if in into is it its itself just me more most my myself no nor not
    now of off on once only or other our ours ourselves out over own same she should so some such than that the
    their theirs them themselves then there these they this those through to too under until up us very was we
    were what when where which while who whom why will with would you your yours yourself yourselves
    s t d ll m re ve don didn doesn isn wasn aren weren won wouldn couldn shouldn hasn haven hadn
"""

STOP_WORDS = frozenset(_STOP_WORD_TEXT.split())
"""Function words that say nothing about a claim's topic (negations included: relevance is about topic, not
stance)."""
