"""Crowd annotation round trip: task pools out, people's answers in, labelled rows out.

RuCoLA's out-of-domain sentences became data only through people, in two stages: stage 1
asks native speakers whether a sentence has a violation, stage 2 asks trained annotators
which kind. The modules here follow the data one way:

- ``toloka``, ``votes`` and ``long_table``: read exports (Toloka layout, generic long
  table) into one long table of votes, failing on malformed input with the file and line;
  ``answers`` reads every answer file of a round, the format told from the file;
- ``label_studio``: the same round trip through Label Studio (labelling config, tasks
  with ground truth, the JSON export read into the same votes table);
- ``pools``: which pool an answered task belongs to (today's, an earlier one, none);
- ``cleaning`` (and ``repeats``): decide the fate of every vote (used, control, or dropped
  with a reason);
- ``aggregate`` (stage 1, through crowd-kit) and ``categories`` (stage 2);
- ``merge``: the whole merge from files to the annotated table and its report (what it
  gives, ``result``, is its own module, so that ``report`` needs no import of ``merge``);
- ``agreement`` and ``report``: WAWA per category, Krippendorff's alpha, the worker table;
- ``export``: task pools with control tasks for the next round (``run_export`` is the
  whole ``annotate export`` command, stage 2 aggregating the stage-1 answers itself);
- ``simulate``: answers drawn from a worker model (``worker_model``), scored per method,
  to plan overlap and budget;
- ``corpus_merge``: labelled out-of-domain rows into the corpus stream.
"""
