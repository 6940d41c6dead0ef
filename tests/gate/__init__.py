"""Tests of `verifier.gate`: the suite of checks on every instruction, the
question memo, the proof and findings caches."""
