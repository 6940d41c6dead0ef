"""Memory coalescing of XLA's GPU fusions, exactly: the emitters' launch
mappings (`emitter`), the device facts they read (`devices`), 32-byte
sectors per warp request counted for every warp (`sectors`), XLA's own
first-warp and heuristic verdicts (`xla_verdict`), and a fusion's answer
(`analysis`)."""
