"""The memory graph's force-directed layout: Qt-free numpy (force.py), its exact and Barnes-Hut
repulsion (repulsion.py) and its PivotMDS start (start.py). The UI runs it on its layout worker."""
