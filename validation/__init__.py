"""The validate stage: a Great Expectations suite over the split data, built in code.

``validation.suite`` turns ``params`` into expectations (and the derived table of split
sizes and label shares they check); ``validation.run`` runs them, writes the JSON report the
release stage trusts, and renders the Data Docs.
"""
