"""Entry script of the frozen app (PyInstaller runs this file as ``__main__``).

It only forwards to `memoir_desktop.app.main`, the same function the ``memoir-desktop``
console entry point calls, so the frozen and the installed app start the same way.
"""

import multiprocessing
import sys

from memoir_desktop.app import main

if __name__ == "__main__":
    # A frozen executable re-runs itself for multiprocessing children (pyqtgraph imports
    # multiprocessing); without this a child would start a second app.
    multiprocessing.freeze_support()
    sys.exit(main(sys.argv))
