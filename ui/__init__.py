"""The Qt front end (PySide6 + pyqtgraph), installed as gpuprof.ui."""
