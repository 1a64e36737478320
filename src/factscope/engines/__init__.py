"""Engines that run a system's pipeline elsewhere than in one process: ``factscope.engines.ray`` runs it on a Ray
cluster, reading and writing the sharded layout of ``factscope.engines.shards``. An engine imports only
``factscope.core``: the caller hands it the pipeline's factory and the record parser."""
