"""What a CI system reads from a run: JUnit XML, GitHub step summaries, annotations and outputs, shards and
their merge, and the regression gate. Every writer reads :mod:`.units`, never a report's own shape."""
