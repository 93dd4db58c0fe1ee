"""Profile the user's own job (issue 13): run or attach to it, record it, explain it, project it.

- :mod:`gpuprof.profile.model`: the frozen records (markers, step statistics, the job profile).
- :mod:`gpuprof.profile.markers`: the marker protocol between a job (``gpuprof.track``) and the
  profiler (``gpuprof profile``): JSON lines appended to the file named by ``GPUPROF_MARKERS``.
"""
